/* File-system helpers shared by the recorder and the CLI. */
#ifndef PSK_FS_H
#define PSK_FS_H

/* Creates dir and its missing parents, like mkdir -p. Returns 0 or errno. */
int psk_mkdir_p(const char *dir);

#endif
