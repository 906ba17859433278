/* Call sites: a return address becomes (module, offset in it) through
 * dladdr, so that the same call in the same binary has the same id on
 * every rank and in every run, whatever ASLR and PIE did to the addresses
 * (STAR-MPI, Faraj, Yuan and Lowenthal, ICS 2006, used raw addresses,
 * which ASLR makes differ between ranks; docs/tune.md, The arms).
 * dladdr is slow, so each address is looked up once and cached. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tune_internal.h"

typedef struct entry {
    uintptr_t ra; /* 0: free */
    psk_tune_site *site;
} entry;

typedef struct module {
    struct module *next;
    char name[];
} module;

static struct {
    pthread_mutex_t lock;
    entry *tab;
    size_t cap, n;
    module *modules;
} S = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

static size_t slot(uintptr_t ra, size_t cap)
{
    return (size_t)(((uint64_t)ra * 0x9e3779b97f4a7c15u) >> 40) & (cap - 1);
}

/* the module's base name, interned (paths may differ between nodes) */
static const char *intern(const char *path)
{
    const char *b = path ? strrchr(path, '/') : NULL;
    const char *name = b ? b + 1 : path && *path ? path : "?";
    for (module *m = S.modules; m; m = m->next)
        if (!strcmp(m->name, name))
            return m->name;
    size_t n = strlen(name) + 1;
    module *m = malloc(sizeof *m + n);
    if (!m)
        return NULL;
    memcpy(m->name, name, n);
    m->next = S.modules;
    S.modules = m;
    return m->name;
}

static psk_tune_site *make_site(void *ra)
{
    Dl_info info;
    psk_tune_site *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    /* ra - 1: inside the calling function even if the call ends it */
    if (dladdr((char *)ra - 1, &info) && info.dli_fbase) {
        s->module = intern(info.dli_fname);
        s->offset = (uintptr_t)ra - (uintptr_t)info.dli_fbase;
    } else {
        s->module = intern(NULL);
        s->offset = (uintptr_t)ra;
    }
    if (!s->module) {
        free(s);
        return NULL;
    }
    s->id = fnv1a(s->module) ^ ((uint64_t)s->offset * 0x9e3779b97f4a7c15u);
    if (!s->id)
        s->id = 1;
    return s;
}

static int grow(void)
{
    size_t cap = S.cap ? 2 * S.cap : 64;
    entry *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < S.cap; i++)
        if (S.tab[i].ra) {
            size_t j = slot(S.tab[i].ra, cap);
            while (t[j].ra)
                j = (j + 1) & (cap - 1);
            t[j] = S.tab[i];
        }
    free(S.tab);
    S.tab = t;
    S.cap = cap;
    return 0;
}

/* each thread's last site: a loop calls from one site, without the lock
 * (sites are never freed) */
static _Thread_local uintptr_t last_ra;
static _Thread_local psk_tune_site *last_site;

const psk_tune_site *psk_tune_site_of(void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    psk_tune_site *found = NULL;
    if (!a)
        return NULL;
    if (a == last_ra)
        return last_site;
    pthread_mutex_lock(&S.lock);
    if (S.cap) {
        size_t j = slot(a, S.cap);
        for (; S.tab[j].ra; j = (j + 1) & (S.cap - 1))
            if (S.tab[j].ra == a) {
                found = S.tab[j].site;
                break;
            }
    }
    if (!found && (2 * (S.n + 1) <= S.cap || !grow()) && (found = make_site(ra)) != NULL) {
        size_t j = slot(a, S.cap);
        while (S.tab[j].ra)
            j = (j + 1) & (S.cap - 1);
        S.tab[j].ra = a;
        S.tab[j].site = found;
        S.n++;
    }
    pthread_mutex_unlock(&S.lock);
    if (found)
        last_ra = a, last_site = found;
    return found;
}
