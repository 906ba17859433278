/* Running another program from the CLI (mpicc, the user's launcher) with
 * its standard output captured: predict and calibrate use it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

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
