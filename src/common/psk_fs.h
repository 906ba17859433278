/* File-system helpers shared by the recorder, the trace writer and the
 * CLI. They return 0 or an errno value and never print, so that each
 * caller reports a failure its own way. */
#ifndef PSK_FS_H
#define PSK_FS_H

/* Creates dir and its missing parents, like mkdir -p. Returns 0 or errno. */
int psk_mkdir_p(const char *dir);

#endif
