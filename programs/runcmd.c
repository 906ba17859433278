/* Running another program from the CLI (mpicc, the user's launcher) with
 * its standard output captured: predict and calibrate use it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "perfskel/trace.h"

int psk_cli_run(char **argv, FILE *out)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "perfskel: %s: cannot run: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[4096];
    while (in && fgets(line, sizeof line, in))
        fputs(line, out);
    if (in)
        fclose(in);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int psk_cli_mpicc(int flavour, const char *src, const char *bin, int with_stdint)
{
    char mpicc[64];
    snprintf(mpicc, sizeof mpicc, "mpicc.%s", psk_flavour_name(flavour));
    char *plain[] = {mpicc, "-O2", "-o", (char *)bin, (char *)src, NULL};
    /* calibrate's program starts with psk_work's source, which needs uint64_t */
    char *pre[] = {mpicc, "-O2", "-include", "stdint.h", "-o", (char *)bin, (char *)src, NULL};
    FILE *null = fopen("/dev/null", "w");
    int st = psk_cli_run(with_stdint ? pre : plain, null ? null : stderr);
    if (null)
        fclose(null);
    if (st)
        psk_cli_error("%s: %s could not build it (status %d)", src, mpicc, st);
    return st ? PSK_EXIT_DATA : 0;
}
