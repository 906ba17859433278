# otf2_writer.py DIR: an OTF2 archive of a 4-rank MPI job written by an
# independent writer (Debian's python3-otf2, on libotf2's Python binding),
# for tests/cli/otf2.sh: perfskel import --otf2 must find exactly these
# calls. Run with /usr/bin/python3 (the binding is Debian's). Times are in
# microseconds (timer resolution 10^6), the ranks' clocks apart by 7 us.
# Per rank: MPI_Init, MPI_Comm_rank (not recorded by perfskel), 3 x (user
# region "compute", MPI_Send + MPI_Recv on a ring of 800 bytes, tag i,
# MPI_Allreduce of 8 bytes), 2 x (MPI_Irecv, MPI_Isend of 96 bytes, tag
# 10 + i, MPI_Waitall), MPI_Bcast of 64 bytes from root 2, MPI_Barrier,
# MPI_Comm_split into even and odd ranks (CommCreate), MPI_Allreduce on it,
# MPI_Comm_free, MPI_Finalize; all inside a user region "main".
# otf2_writer.py DIR MODE writes it wrong for the crafted-input tests:
# nofinalize: without MPI_Finalize (so its region is not defined: with
# another archive's events, an event refers to an undefined region);
# badpeer: rank 0's first send goes to rank 9 of 4; backwards: rank 1's
# time goes back by 50 us; ctrlname: MPI_Comm_rank's region named with a
# newline and control bytes in it.
import sys

import otf2
from otf2.enums import CollectiveOp, GroupType, Paradigm, RegionRole

P = 4
MODE = sys.argv[2] if len(sys.argv) > 2 else ""
UNDEF = 0xFFFFFFFF

with otf2.writer.open(sys.argv[1], timer_resolution=1000000) as trace:
    d = trace.definitions
    root = d.system_tree_node("cluster")
    node = d.system_tree_node("node7", class_name="node", parent=root)
    locs = []
    for r in range(P):
        lg = d.location_group("MPI Rank %d" % r, system_tree_parent=node)
        locs.append(d.location("Master thread", group=lg))
    d.group("all", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
    world = d.comm("MPI_COMM_WORLD", group=d.group("world", group_type=GroupType.COMM_GROUP,
                                                   paradigm=Paradigm.MPI, members=list(range(P))))
    halves = [d.comm("half %d" % c, parent=world,
                     group=d.group("half %d" % c, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                                   members=[r for r in range(P) if r % 2 == c]))
              for c in (0, 1)]
    reg = {}

    def region(name, role=RegionRole.FUNCTION, paradigm=Paradigm.MPI):
        if name not in reg:
            reg[name] = d.region(name, region_role=role, paradigm=paradigm)
        return reg[name]

    for r in range(P):
        w = trace.event_writer_from_location(locs[r])
        t = [1000 + 7 * r]

        def tick(n=1):
            t[0] += n
            return t[0]

        def call(name, inside=None, role=RegionRole.FUNCTION):
            reg_ = region(name, role)
            w.enter(tick(), reg_)
            if inside:
                inside()
            w.leave(tick(2), reg_)

        def coll(op, comm, rt, sent, recvd):
            def f():
                w.mpi_collective_begin(tick())
                w.mpi_collective_end(tick(), op, comm, rt, sent, recvd)
            return f

        main = region("main", paradigm=Paradigm.USER)
        w.enter(tick(), main)
        call("MPI_Init")
        call("MPI_Comm_rank\n\x01\x1b[31mred" if MODE == "ctrlname" else "MPI_Comm_rank")
        right, left = (r + 1) % P, (r + P - 1) % P
        for i in range(3):
            comp = region("compute", paradigm=Paradigm.USER)
            w.enter(tick(), comp)
            w.leave(tick(10), comp)
            to = 9 if MODE == "badpeer" and r == 0 and i == 0 else right
            if MODE == "backwards" and r == 1 and i == 1:
                t[0] -= 50
            send = lambda: w.mpi_send(tick(), to, world, i, 800)
            recv = lambda: w.mpi_recv(tick(), left, world, i, 800)
            if r % 2 == 0:
                call("MPI_Send", send, RegionRole.POINT2POINT)
                call("MPI_Recv", recv, RegionRole.POINT2POINT)
            else:
                call("MPI_Recv", recv, RegionRole.POINT2POINT)
                call("MPI_Send", send, RegionRole.POINT2POINT)
            call("MPI_Allreduce", coll(CollectiveOp.ALLREDUCE, world, UNDEF, 4 * 8, 4 * 8), RegionRole.COLL_ALL2ALL)
        req = 100
        for i in range(2):
            rr, sr = req, req + 1
            req += 2
            call("MPI_Irecv", lambda: w.mpi_irecv_request(tick(), rr), RegionRole.POINT2POINT)
            call("MPI_Isend", lambda: w.mpi_isend(tick(), right, world, 10 + i, 96, sr), RegionRole.POINT2POINT)

            def waitall():
                w.mpi_isend_complete(tick(), sr)
                w.mpi_irecv(tick(), left, world, 10 + i, 96, rr)
            call("MPI_Waitall", waitall, RegionRole.POINT2POINT)
        # bytes as Score-P counts them: a root sends to every rank (itself too)
        call("MPI_Bcast", coll(CollectiveOp.BCAST, world, 2, 4 * 64 if r == 2 else 0, 64),
             RegionRole.COLL_ONE2ALL)
        call("MPI_Barrier", coll(CollectiveOp.BARRIER, world, UNDEF, 0, 0), RegionRole.BARRIER)
        half = halves[r % 2]

        def split():
            w.mpi_collective_begin(tick())
            w.comm_create(tick(), half)
            w.mpi_collective_end(tick(), CollectiveOp.CREATE_HANDLE, world, UNDEF, 0, 0)
        call("MPI_Comm_split", split)
        call("MPI_Allreduce", coll(CollectiveOp.ALLREDUCE, half, UNDEF, 2 * 16, 2 * 16), RegionRole.COLL_ALL2ALL)
        call("MPI_Comm_free", lambda: w.comm_destroy(tick(), half))
        if MODE != "nofinalize":
            call("MPI_Finalize")
        w.leave(tick(), main)
