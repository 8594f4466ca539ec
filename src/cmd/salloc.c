/* SPDX-License-Identifier: Apache-2.0
 *
 * salloc.c - get an allocation, run a command in it, give it back
 *
 *     salloc [resource options] [command [args...]]
 *
 * Options are sbatch's table (src/cmd/lib/sbatch_opt.c, salloc's rows).
 * The allocation comes from src/cmd/lib/alloc.c (shared with srun); the
 * command (default: $SHELL) runs here, in its own process group that gets
 * the terminal, with the job's SLURM_* variables.  When it exits the
 * allocation is released with its exit status and salloc exits with it.
 * If the job ends first (time limit, scancel), salloc says so and hangs
 * up the command (SIGHUP on a terminal, else SIGTERM; SIGKILL after
 * KillWait).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/alloc.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sbatch_opt.h"
#include "cmd/lib/slurm_texts.h"
#include "cmd/lib/sbatch_req.h"
#include "common/xalloc.h"

extern char **environ;

/* How often the job is looked at while the command runs (s). */
#define CHECK_S 1

static volatile sig_atomic_t hangup;

static void on_hangup(int signo)
{
    hangup = signo;
}

static void on_child(int signo)
{
    (void)signo; /* only cuts the sleep short */
}

static int report(const struct sbatch_error *e)
{
    sbatch_error_print_as(e, "salloc", stderr);
    return e->exit_code;
}

static void usage(void)
{
    fputs(salloc_usage_text, stdout);
}

/* Parse; returns -1 to go on, else the exit status. */
static int parse(struct sbatch_opts *o, int argc, char **argv)
{
    struct sbatch_error e = {0};
    const char *shell = getenv("SHELL");

    switch (sbatch_opts_first_pass(o, argc, argv, &e)) {
    case SBATCH_SUBMIT:
        break;
    case SBATCH_HELP:
        sbatch_opts_print_help_cmd(stdout, SBATCH_CMD_SALLOC);
        return 0;
    case SBATCH_USAGE:
        usage();
        return 0;
    case SBATCH_VERSION:
        cmd_print_version();
        return 0;
    default:
        return report(&e);
    }
    if (!o->script_path) /* Slurm without SallocDefaultCommand */
        o->script_path = xstrdup(shell && *shell ? shell : "/bin/sh");
    if (sbatch_opts_second_pass(o, NULL, NULL, environ, &e) < 0)
        return report(&e);
    if (o->verbose)
        sbatch_opts_print_set(o, stderr);
    return -1;
}

static pid_t start_command(const struct sbatch_opts *o, bool tty)
{
    char **argv = xzalloc(sizeof(*argv) * (size_t)(o->script_argc + 2));
    pid_t pid;

    argv[0] = o->script_path;
    for (int i = 0; i < o->script_argc; i++)
        argv[i + 1] = o->script_argv[i];
    if ((pid = fork()) == 0) {
        setpgid(0, 0);
        if (tty)
            tcsetpgrp(STDIN_FILENO, getpid());
        signal(SIGTTOU, SIG_DFL);
        execvp(argv[0], argv);
        fprintf(stderr, "salloc: error: Unable to exec command \"%s\": %s\n",
                argv[0], strerror(errno));
        _exit(127);
    }
    if (pid > 0) {
        setpgid(pid, pid);
        if (tty)
            tcsetpgrp(STDIN_FILENO, pid);
    }
    free(argv);
    return pid;
}

static void catch(int signo, void (*fn)(int))
{
    struct sigaction sa = {.sa_handler = fn};

    sigemptyset(&sa.sa_mask);
    sigaction(signo, &sa, NULL);
}

/* Wait for the command; while it runs, watch the job.  Returns its raw
 * wait status; *revoked when the job ended under it (the command's group
 * then gets 'revoke_sig': -K's signal, else SIGHUP on a terminal and
 * SIGTERM otherwise, and SIGKILL KillWait seconds later). */
static int supervise(uint32_t id, pid_t pid, int revoke_sig, bool *revoked)
{
    int kill_wait = (int)cmd_conf("salloc")->kill_wait_s, status = 0;
    int alive_ms = alloc_alive_interval_ms("salloc");
    time_t killed_at = 0, alive_at = 0;

    *revoked = false;
    for (;;) {
        /* InactiveLimit: say so before the controller would forget us */
        if (alive_ms && !killed_at
            && (time(NULL) - alive_at) * 1000 >= alive_ms) {
            (void)alloc_alive("salloc", id);
            alive_at = time(NULL);
        }
        pid_t r = waitpid(pid, &status, WNOHANG);

        if (r == pid || (r < 0 && errno != EINTR)) {
            /* A scancel ends the tasks, and so the command, at once. */
            if (!*revoked && !killed_at && alloc_check("salloc", id) < 0)
                *revoked = true;
            return r == pid ? status : 0;
        }
        if (hangup && !killed_at) {
            killpg(pid, SIGHUP);
            killed_at = time(NULL);
        }
        if (!*revoked && !killed_at && alloc_check("salloc", id) < 0) {
            *revoked = true;
            killpg(pid, revoke_sig);
            killed_at = time(NULL);
        }
        if (killed_at && time(NULL) - killed_at > kill_wait)
            killpg(pid, SIGKILL);
        sleep(CHECK_S); /* SIGCHLD cuts it short */
    }
}

static int run(struct sbatch_opts *o)
{
    struct sbatch_error e = {0};
    bool tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
    bool revoked;
    json_t *desc, *job;
    uint32_t id;
    int rc, status;
    pid_t pid;

    if (o->clusters && !cmd_clusters_check("salloc", o->clusters))
        return 1;
    o->submit_host = alloc_submit_host();
    if (!(desc = sbatch_opts_job_desc(o, NULL, environ, &e))
        || sbatch_req_finish(desc, time(NULL), &e) < 0) {
        json_decref(desc);
        return report(&e);
    }
    if (!(job = alloc_create(o, desc, &rc)))
        return rc;
    id = (uint32_t)json_integer_value(json_object_get(job, "job_id"));
    alloc_set_env(o, job);
    json_decref(job);
    if (o->no_shell) /* the allocation stays until scancel or its limit */
        return 0;
    signal(SIGTTOU, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    catch(SIGHUP, on_hangup);
    catch(SIGTERM, on_hangup);
    catch(SIGCHLD, on_child);
    if ((pid = start_command(o, tty)) < 0) {
        fprintf(stderr, "salloc: error: fork: %s\n", strerror(errno));
        alloc_release("salloc", id, 1 << 8, true);
        return 1;
    }
    status = supervise(id, pid,
                       o->kill_command_signal ? o->kill_command_signal
                       : tty ? SIGHUP : SIGTERM, &revoked);
    if (tty)
        tcsetpgrp(STDIN_FILENO, getpgrp());
    if (!revoked)
        alloc_release("salloc", id, status, true);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    struct sbatch_opts *o;
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IOLBF, 0);
    if (!(o = sbatch_opts_create_cmd(stderr, SBATCH_CMD_SALLOC))) {
        fprintf(stderr, "salloc: error: getcwd failed: %s\n",
                strerror(errno));
        return 1;
    }
    rc = parse(o, argc, argv);
    if (rc < 0)
        rc = run(o);
    sbatch_opts_destroy(o);
    return rc;
}
