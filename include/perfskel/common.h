/* perfskel common definitions: status codes shared by every stage.
 * One error convention across the libraries: a call returns PSK_OK (0) or
 * a negative psk_status, and the detailed one-line message (naming the
 * file and what is wrong) lives on the object that failed, read with its
 * psk_<object>_errmsg(): the trace, rank reader, writer, job document,
 * merged trace, folding, skeleton (psk_gen), machine and simulation. A
 * constructor sets *out even when it fails (unless memory ran out) so that
 * the message can be read. No library prints or exits. */
#ifndef PERFSKEL_COMMON_H
#define PERFSKEL_COMMON_H

typedef enum psk_status {
    PSK_OK = 0,
    PSK_ENOMEM = -1,     /* allocation failed */
    PSK_EIO = -2,        /* read, write, open failed */
    PSK_EFORMAT = -3,    /* not a perfskel file, or corrupt (bad checksum) */
    PSK_ETRUNCATED = -4, /* the data ends early */
    PSK_EMISMATCH = -5,  /* files that must agree do not (job id, rank count) */
    PSK_EVERSION = -6,   /* unsupported format version */
    PSK_EINVAL = -7,     /* bad argument */
    PSK_ENOTFOUND = -8,  /* a file or rank that should exist does not */
    PSK_EOF = -9         /* no more data (not an error for iterators) */
} psk_status;

/* A short English phrase for a status code ("corrupt data", ...). */
const char *psk_strstatus(int status);

#endif
