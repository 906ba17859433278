/* perfskel sim's HTML report: its script (embedded into the page; no
 * library, no network). Reads the data in #psk-data (sim_html_data.c),
 * replaces each machine's static timeline by a zoomable one on a canvas
 * (wheel or buttons to zoom, drag or buttons to pan, hover for the call
 * or the merged calls under the pointer), shows one machine at a time
 * with buttons to switch, puts tooltips on the tables' bars and the
 * communication matrix, and, opened with #selftest, exercises all that
 * and writes what it found into #selftest. Names from the data are only
 * ever set as text (textContent), never parsed as HTML. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("psk-data").textContent);
  var fns = data.fns;
  var ROW = 16, BAR = 13, LABEL = 64, AXIS = 22;
  var C_CPU = "#4c9a2a", C_WAIT = "#d9822b";
  var palette = ["#2f6db5", "#b5402f", "#7b4fb0", "#1f9e9e", "#c4a000", "#a34d82",
                 "#5a6b7d", "#e06c00", "#3d8fd6", "#8c564b", "#17becf", "#bc5fd3"];

  /* function i of fns: the colour psk_html_fn_colour() gives it in the tables */
  function fnColour(i) {
    return i >= 0 ? palette[i % 12] : "#777";
  }
  function fmtT(s) {
    var a = Math.abs(s);
    if (a >= 1) return s.toFixed(6) + " s";
    if (a >= 1e-3) return (s * 1e3).toFixed(3) + " ms";
    if (a >= 1e-6) return (s * 1e6).toFixed(2) + " us";
    return (s * 1e9).toFixed(0) + " ns";
  }
  function fnName(i) {
    return i >= 0 && i < fns.length ? fns[i] : "?";
  }
  /* a tick of the time axis, in the unit and with the decimals its step needs */
  function fmtTick(t, step) {
    var u = step >= 0.1 ? [1, " s"] : step >= 1e-4 ? [1e3, " ms"] : step >= 1e-7 ? [1e6, " us"] : [1e9, " ns"];
    var d = Math.max(0, Math.ceil(-Math.log10(step * u[0]) - 1e-9));
    return (t * u[0]).toFixed(Math.min(d, 9)) + u[1];
  }
  function fmtB(b) {
    if (b >= 1048576) return (b / 1048576).toFixed(2) + " MiB (" + b + " bytes)";
    if (b >= 1024) return (b / 1024).toFixed(1) + " KiB (" + b + " bytes)";
    return b + " bytes";
  }

  /* one tooltip for the page */
  var tip = document.createElement("div");
  tip.className = "tip";
  tip.id = "psk-tip";
  document.body.appendChild(tip);
  function showTip(text, x, y) {
    tip.textContent = text;
    tip.style.display = "block";
    var w = tip.offsetWidth, vw = window.innerWidth || 800;
    tip.style.left = Math.max(0, Math.min(x + 14, vw - w - 4)) + "px";
    tip.style.top = (y + 14) + "px";
  }
  function hideTip() { tip.style.display = "none"; }

  /* ---- the timeline of one run ---- */
  function Timeline(host, run) {
    this.host = host;
    this.run = run;
    this.rows = [];
    this.end = run.predicted > 0 ? run.predicted : 1e-9;
    for (var r = 0; r < run.rows.length; r++) {
      var src = run.rows[r], s = src.s, n = s.length / 8, t = 0;
      var row = {rank: src.rank, exec: src.exec, cpu: src.cpu, mpi: src.mpi, sync: src.sync, n: n,
                 t0: new Float64Array(n), t1: new Float64Array(n), mp: new Float64Array(n),
                 sy: new Float64Array(n), fn: new Int32Array(n), peer: new Int32Array(n),
                 bytes: new Float64Array(n), calls: new Float64Array(n), last: 0};
      for (var i = 0; i < n; i++) {
        var o = 8 * i;
        t += s[o];
        row.t0[i] = t * 1e-9;
        t += s[o + 1];
        row.t1[i] = t * 1e-9;
        row.mp[i] = s[o + 2] * 1e-9;
        row.sy[i] = s[o + 3] * 1e-9;
        row.fn[i] = s[o + 4];
        row.peer[i] = s[o + 5];
        row.bytes[i] = s[o + 6];
        row.calls[i] = s[o + 7];
      }
      row.last = n ? row.t1[n - 1] : 0;
      if (row.last > this.end) this.end = row.last;
      this.rows.push(row);
    }
    this.v0 = 0;
    this.v1 = this.end;
    this.build();
  }

  Timeline.prototype.build = function () {
    var self = this, host = this.host;
    var tools = document.createElement("div");
    tools.className = "tl-tools";
    var buttons = [["zoom in", function () { self.zoom(0.5, 0.5); }],
                   ["zoom out", function () { self.zoom(2, 0.5); }],
                   ["\u2190 earlier", function () { self.pan(-0.25); }],
                   ["later \u2192", function () { self.pan(0.25); }],
                   ["whole run", function () { self.setView(0, self.end); }]];
    buttons.forEach(function (b) {
      var e = document.createElement("button");
      e.type = "button";
      e.textContent = b[0];
      e.addEventListener("click", b[1]);
      tools.appendChild(e);
    });
    host.appendChild(tools);
    this.canvas = document.createElement("canvas");
    host.appendChild(this.canvas);
    this.info = document.createElement("div");
    this.info.className = "tl-info";
    host.appendChild(this.info);
    var legend = document.createElement("p");
    legend.className = "legend";
    var items = [["compute", C_CPU], ["waiting for a late partner", C_WAIT]];
    var seen = {};
    this.rows.forEach(function (row) {
      for (var i = 0; i < row.n; i++) if (row.fn[i] >= 0) seen[row.fn[i]] = 1;
    });
    Object.keys(seen).forEach(function (k) { items.push([fns[k], fnColour(+k)]); });
    items.forEach(function (it) {
      var span = document.createElement("span"), i = document.createElement("i");
      i.style.background = it[1];
      span.appendChild(i);
      span.appendChild(document.createTextNode(it[0]));
      legend.appendChild(span);
    });
    host.appendChild(legend);
    var c = this.canvas, drag = null;
    c.addEventListener("wheel", function (e) {
      e.preventDefault();
      var f = self.fracAt(e.clientX);
      self.zoom(e.deltaY < 0 ? 0.8 : 1.25, f);
    }, {passive: false});
    c.addEventListener("mousedown", function (e) {
      drag = {x: e.clientX, v0: self.v0, v1: self.v1};
    });
    window.addEventListener("mouseup", function () { drag = null; });
    c.addEventListener("mousemove", function (e) {
      if (drag && e.buttons) {
        var dt = (drag.v1 - drag.v0) * (drag.x - e.clientX) / self.plotW();
        self.setView(drag.v0 + dt, drag.v1 + dt);
        hideTip();
        return;
      }
      self.hover(e);
    });
    c.addEventListener("mouseleave", hideTip);
    c.tabIndex = 0; /* keys: + and - zoom, arrows pan, 0 the whole run */
    c.addEventListener("keydown", function (e) {
      var act = {"+": function () { self.zoom(0.5, 0.5); }, "=": function () { self.zoom(0.5, 0.5); },
                 "-": function () { self.zoom(2, 0.5); }, "ArrowLeft": function () { self.pan(-0.25); },
                 "ArrowRight": function () { self.pan(0.25); }, "0": function () { self.setView(0, self.end); }}[e.key];
      if (act) { e.preventDefault(); act(); }
    });
    c.addEventListener("dblclick", function (e) { self.zoom(0.5, self.fracAt(e.clientX)); });
  };

  Timeline.prototype.plotW = function () {
    return Math.max(50, (this.width || 600) - LABEL - 4);
  };
  Timeline.prototype.fracAt = function (clientX) {
    var rect = this.canvas.getBoundingClientRect();
    return Math.max(0, Math.min(1, (clientX - rect.left - LABEL) / this.plotW()));
  };
  Timeline.prototype.setView = function (a, b) {
    var w = b - a, minW = 1e-9;
    if (w < minW) { a = (a + b) / 2 - minW / 2; w = minW; }
    if (w > this.end) w = this.end;
    if (a < 0) a = 0;
    if (a + w > this.end) a = this.end - w;
    this.v0 = a;
    this.v1 = a + w;
    this.draw();
  };
  /* factor < 1 zooms in, around the fraction f of the view */
  Timeline.prototype.zoom = function (factor, f) {
    var at = this.v0 + f * (this.v1 - this.v0), w = (this.v1 - this.v0) * factor;
    this.setView(at - f * w, at - f * w + w);
  };
  Timeline.prototype.pan = function (f) {
    var d = f * (this.v1 - this.v0);
    this.setView(this.v0 + d, this.v1 + d);
  };

  /* index of the last segment starting at or before t, -1 if none */
  function before(row, t) {
    var lo = 0, hi = row.n - 1, k = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (row.t0[mid] <= t) { k = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return k;
  }

  Timeline.prototype.draw = function () {
    var width = this.host.clientWidth || 0;
    if (!width) return; /* hidden: drawn when shown */
    this.width = width;
    var c = this.canvas, dpr = window.devicePixelRatio || 1;
    var h = this.rows.length * ROW + AXIS, W = this.plotW();
    c.style.width = width + "px";
    c.style.height = h + "px";
    c.width = Math.round(width * dpr);
    c.height = Math.round(h * dpr);
    var g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, h);
    g.font = "11px sans-serif";
    var v0 = this.v0, v1 = this.v1, dt = (v1 - v0) / W;
    var act = new Float64Array(W), mp = new Float64Array(W), sy = new Float64Array(W);
    var best = new Int32Array(W), bestT = new Float64Array(W);
    for (var r = 0; r < this.rows.length; r++) {
      var row = this.rows[r], y = r * ROW;
      g.fillStyle = "#222";
      g.fillText("rank " + row.rank, 2, y + BAR - 2);
      act.fill(0); mp.fill(0); sy.fill(0); bestT.fill(0); best.fill(-1);
      /* the rank runs from 0 to its last call's end */
      var aEnd = Math.min(row.last, v1);
      for (var x = 0; x < W && v0 + x * dt < aEnd; x++)
        act[x] = Math.min(aEnd, v0 + (x + 1) * dt) - Math.max(0, v0 + x * dt);
      var k = Math.max(0, before(row, v0));
      for (; k < row.n && row.t0[k] <= v1; k++) {
        var a = Math.max(row.t0[k], v0), b = Math.min(row.t1[k], v1), span = row.t1[k] - row.t0[k];
        if (b < a || span <= 0) continue;
        var rm = row.mp[k] / span, rs = row.sy[k] / span;
        var x0 = Math.floor((a - v0) / dt), x1 = Math.min(W - 1, Math.floor((b - v0) / dt));
        for (var px = x0; px <= x1; px++) {
          var ov = Math.min(b, v0 + (px + 1) * dt) - Math.max(a, v0 + px * dt);
          if (ov <= 0) continue;
          mp[px] += ov * rm;
          sy[px] += ov * rs;
          if (ov * rm > bestT[px]) { bestT[px] = ov * rm; best[px] = row.fn[k]; }
        }
      }
      for (x = 0; x < W; x++) {
        if (act[x] <= 0) continue;
        var m = Math.min(mp[x], act[x]), s = Math.min(sy[x], m);
        var hc = BAR * (act[x] - m) / dt, hm = BAR * (m - s) / dt, hs = BAR * s / dt, yy = y;
        if (hc > 0) { g.fillStyle = C_CPU; g.fillRect(LABEL + x, yy, 1, hc); yy += hc; }
        if (hm > 0) { g.fillStyle = fnColour(best[x]); g.fillRect(LABEL + x, yy, 1, hm); yy += hm; }
        if (hs > 0) { g.fillStyle = C_WAIT; g.fillRect(LABEL + x, yy, 1, hs); }
      }
    }
    /* the time axis */
    var ya = this.rows.length * ROW + 2, span = v1 - v0;
    var step = Math.pow(10, Math.floor(Math.log10(span / 6)));
    if (span / step > 12) step *= 5; else if (span / step > 6) step *= 2;
    g.fillStyle = "#444";
    g.fillRect(LABEL, ya, W, 1);
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var xt = LABEL + (t - v0) / dt;
      g.fillRect(xt, ya, 1, 4);
      var label = fmtTick(t, step);
      var tw = g.measureText(label).width;
      g.fillText(label, Math.min(width - tw - 2, Math.max(LABEL, xt - tw / 2)), ya + 15);
    }
    this.info.textContent = "Showing " + fmtT(v0) + " to " + fmtT(v1) + " of " + fmtT(this.end) +
      " (zoom x" + (this.end / span).toFixed(1) + "): wheel, buttons or + and - to zoom, drag or arrows to pan, " +
      "hover for details." +
      (this.run.ranks > this.rows.length ? " The first " + this.rows.length + " of " + this.run.ranks + " ranks." : "");
  };

  /* the text for rank row r at time t (tol: seconds either side) */
  Timeline.prototype.describe = function (r, t, tol) {
    var row = this.rows[r];
    if (!row) return "";
    var k = before(row, t + tol);
    var head = "rank " + row.rank + " (in all: " + fmtT(row.cpu) + " compute, " + fmtT(row.mpi) + " MPI of which " +
      fmtT(row.sync) + " waiting)\n";
    if (k < 0 || row.t1[k] < t - tol)
      return head + (t <= row.last ? "computing at " + fmtT(t) : "finished at " + fmtT(row.last));
    var fn = fnName(row.fn[k]), n = row.calls[k], peer = row.peer[k];
    if (n === 1) {
      var s = head + fn;
      if (peer >= 0) s += ", peer rank " + peer;
      if (row.bytes[k] > 0) s += ", " + fmtB(row.bytes[k]);
      s += "\n" + fmtT(row.t1[k] - row.t0[k]) + " from " + fmtT(row.t0[k]);
      if (row.sy[k] > 0) s += ", of it " + fmtT(row.sy[k]) + " waiting for a late partner";
      return s;
    }
    return head + n + " calls merged (mostly " + fn + (peer >= 0 ? ", all with rank " + peer : "") + "), " +
      fmtT(row.t0[k]) + " to " + fmtT(row.t1[k]) + "\n" + fmtT(row.mp[k]) + " in MPI, " + fmtT(row.sy[k]) +
      " waiting, " + fmtB(row.bytes[k]) + "; zoom in for fewer";
  };

  Timeline.prototype.hover = function (e) {
    var rect = this.canvas.getBoundingClientRect();
    var x = e.clientX - rect.left - LABEL, y = e.clientY - rect.top, r = Math.floor(y / ROW);
    if (x < 0 || r < 0 || r >= this.rows.length) { hideTip(); return; }
    var dt = (this.v1 - this.v0) / this.plotW();
    showTip(this.describe(r, this.v0 + x * dt, 2 * dt), e.clientX, e.clientY);
  };

  /* ---- the page ---- */
  var timelines = [];
  var hosts = document.querySelectorAll("div.tl");
  for (var i = 0; i < hosts.length; i++) {
    var k = +hosts[i].getAttribute("data-run"), run = data.runs[k];
    if (!run || !run.rows.length) continue;
    timelines[k] = new Timeline(hosts[i], run);
    var st = hosts[i].nextElementSibling;
    if (st && st.className === "tl-static") st.style.display = "none";
  }
  var runs = document.querySelectorAll("div.run"), nav = document.querySelector("nav.machines");
  function show(k) {
    for (var j = 0; j < runs.length; j++)
      runs[j].style.display = +runs[j].getAttribute("data-run") === k ? "" : "none";
    if (nav) {
      var bs = nav.querySelectorAll("button");
      for (j = 0; j < bs.length; j++) bs[j].className = +bs[j].getAttribute("data-run") === k ? "on" : "";
    }
    if (timelines[k]) timelines[k].draw();
  }
  if (nav && runs.length > 1) {
    nav.hidden = false;
    nav.addEventListener("click", function (e) {
      var b = e.target.closest("button");
      if (b) show(+b.getAttribute("data-run"));
    });
    var rowsC = document.querySelectorAll("table.compare tr[data-run]");
    for (i = 0; i < rowsC.length; i++)
      rowsC[i].addEventListener("click", function () { show(+this.getAttribute("data-run")); });
  }
  show(0);
  window.addEventListener("resize", function () {
    timelines.forEach(function (t) { if (t) t.draw(); });
  });
  /* tooltips for the tables' bars and the matrix: their title, shown at once */
  document.addEventListener("mouseover", function (e) {
    var el = e.target;
    if (!el || !el.closest || el.closest("canvas")) return;
    var t = el.closest("[title],[data-tip]");
    if (!t || !t.closest(".bar,table.matrix")) return;
    if (t.hasAttribute("title")) {
      t.setAttribute("data-tip", t.getAttribute("title"));
      t.removeAttribute("title");
    }
    showTip(t.getAttribute("data-tip"), e.clientX, e.clientY);
  });
  document.addEventListener("mouseout", function (e) {
    if (e.target && e.target.closest && e.target.closest("[data-tip]")) hideTip();
  });

  /* ---- #selftest: the interactive parts, exercised as a user would ---- */
  function selftest() {
    var out = [], fails = [];
    function check(ok, what) { (ok ? out : fails).push(what); }
    function mouse(el, type, x, y) {
      el.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: x, clientY: y}));
    }
    try {
      var tl = timelines[0];
      check(!!tl, "timeline of the first machine built");
      if (tl) {
        check(tl.canvas.width > 0, "timeline drawn (" + tl.rows.length + " ranks)");
        var w0 = tl.v1 - tl.v0;
        tl.zoom(0.125, 0.5);
        check(Math.abs((tl.v1 - tl.v0) - w0 / 8) <= w0 * 1e-9, "zoomed in 8x: " + fmtT(tl.v0) + " to " + fmtT(tl.v1));
        var c0 = tl.v0;
        tl.pan(0.5);
        check(tl.v0 > c0, "panned later to " + fmtT(tl.v0));
        /* rank 0's first call that took time (or, in a long trace, its
         * first segment of merged calls), zoomed to and hovered */
        var row = tl.rows[0], k = -1, km = -1;
        for (var j = 0; j < row.n && k < 0; j++)
          if (row.t1[j] > row.t0[j]) {
            if (row.calls[j] === 1) k = j;
            else if (km < 0) km = j;
          }
        if (k < 0) k = km;
        check(k >= 0, "rank 0 has a segment that took time");
        if (k >= 0) {
          var len = row.t1[k] - row.t0[k];
          tl.setView(row.t0[k] - len, row.t1[k] + len);
          var rect = tl.canvas.getBoundingClientRect();
          mouse(tl.canvas, "mousemove", rect.left + LABEL + tl.plotW() / 2, rect.top + ROW / 2);
          var text = tip.textContent, one = row.calls[k] === 1;
          check(tip.style.display === "block" && text.indexOf("rank 0") === 0 &&
                text.indexOf(one ? "\n" + fnName(row.fn[k]) : "mostly " + fnName(row.fn[k])) > 0,
                "hover on " + (one ? "a call" : "merged calls") + ": " + text.replace(/\n/g, " | "));
          mouse(tl.canvas, "mouseleave", 0, 0);
        }
        var wr = tl.canvas.getBoundingClientRect(), wb = tl.v1 - tl.v0;
        tl.canvas.dispatchEvent(new WheelEvent("wheel", {bubbles: true, cancelable: true, deltaY: -100,
                                                         clientX: wr.left + LABEL + 10, clientY: wr.top + 5}));
        check(tl.v1 - tl.v0 < wb, "the wheel zooms in");
        var kb = tl.v1 - tl.v0;
        tl.canvas.dispatchEvent(new KeyboardEvent("keydown", {key: "+", bubbles: true, cancelable: true}));
        check(Math.abs((tl.v1 - tl.v0) - kb / 2) <= kb * 1e-9, "the + key zooms in");
        tl.canvas.dispatchEvent(new KeyboardEvent("keydown", {key: "0", bubbles: true, cancelable: true}));
        check(tl.v0 === 0 && tl.v1 === tl.end, "back to the whole run (the 0 key)");
      }
      if (runs.length > 1) {
        var b = nav.querySelectorAll("button")[1];
        b.click();
        check(runs[1].style.display !== "none" && runs[0].style.display === "none",
              "switched to machine 2: " + b.textContent);
        var tl2 = timelines[1];
        check(!!tl2 && tl2.canvas.width > 0, "its timeline drawn");
        var p = runs[1].querySelector("p.pred");
        var shown = p ? parseFloat(p.querySelector("b").textContent) : NaN;
        check(Math.abs(shown - data.runs[1].predicted) <= 1e-6 * Math.max(1, shown), "its prediction shown: " + shown + " s");
        nav.querySelectorAll("button")[0].click();
        check(runs[0].style.display !== "none", "switched back to machine 1");
      }
      var cells = document.querySelectorAll("table.matrix td[title],table.matrix td[data-tip]");
      if (cells.length) {
        var cr = cells[0].getBoundingClientRect();
        mouse(cells[0], "mouseover", cr.left + 2, cr.top + 2);
        check(/bytes in \d+ messages/.test(tip.textContent), "matrix hover: " + tip.textContent);
      }
      var fbar = document.querySelector("table.fns .bar span");
      if (fbar) {
        mouse(fbar, "mouseover", 10, 10);
        check(/calls/.test(tip.textContent), "function bar hover: " + tip.textContent);
      }
    } catch (err) {
      fails.push("exception: " + err.message);
    }
    var el = document.getElementById("selftest");
    el.hidden = false;
    el.textContent = (fails.length ? "selftest: FAIL: " + fails.join("; ") : "selftest: ok") + "\n" + out.join("\n");
  }
  if (location.hash === "#selftest") selftest();
})();
