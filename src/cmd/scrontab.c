/* SPDX-License-Identifier: Apache-2.0
 *
 * scrontab.c - manage a user's crontab in the controller (Slurm's
 * scrontab)
 *
 * scrontab [-u user] [file|-] installs a crontab (stdin when the file is
 * "-", or when stdin is not a terminal and no option is given); -l lists
 * it (entries scancel disabled as "#DISABLED: "), -r removes it, -e edits
 * it in $VISUAL, $EDITOR or vi on a private temporary file (as the
 * invoking user: scrontab itself is not privileged), then installs it.
 * Each entry is checked here (its time specification, its #SCRON options
 * through sbatch's parser, scrontab_file.h), and the whole file is
 * refused at the first bad line, which is named (Slurm prints only
 * "There are errors in your crontab."); -e then asks, as Slurm's, whether
 * to edit again with the refused lines marked "#BAD: ".  Works only with
 * ScronParameters=enable, else Slurm's "scrontab is disabled on this
 * cluster".  The controller keeps the file and turns its entries into
 * cron jobs (src/ctld/crontab.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/scrontab_file.h"
#include "common/fdio.h"
#include "common/xalloc.h"

#define PROG "scrontab"

enum { OPT_HELP = CMD_OPT_LONG, OPT_USAGE };

static const struct cmd_opt opts[] = {
    {NULL, 0, 0, "\nOptions:\n"},
    {"edit", 'e', no_argument,
     "  -e                edit the crontab (in $VISUAL, else $EDITOR, "
     "else vi)\n"},
    {"list", 'l', no_argument,
     "  -l                list the crontab\n"},
    {"remove", 'r', no_argument,
     "  -r                remove the crontab: its pending jobs are "
     "cancelled,\n"
     "                    running ones finish and do not recur\n"},
    {"user", 'u', required_argument,
     "  -u <user>         the crontab of another user (listing: operators "
     "and\n"
     "                    administrators; changes: root and SlurmUser)\n"},
    {"verbose", 'v', no_argument,
     "  -v                increase verbosity\n"},
    {"version", 'V', no_argument,
     "  -V, --version     print version information and exit\n"
     "\nHelp options:\n"},
    {"help", OPT_HELP, no_argument,
     "  --help            show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage           display brief usage message\n"},
    CMD_OPT_END,
};

static const char usage_text[] =
    "Usage: scrontab [-u user] [-e | -l | -r] [file]\n";

enum action { INSTALL, EDIT, LIST, REMOVE };

struct scron_opts {
    enum action action;
    const char *file;   /* INSTALL: the file, "-" for stdin */
    const char *user;   /* -u, or NULL */
    uid_t uid;
    char *user_name, *home;
};

/* "scrontab: fatal: ..." and exit 1, as Slurm's fatal(). */
__attribute__((format(printf, 1, 2), noreturn)) static void
fatal(const char *fmt, ...)
{
    va_list ap;

    fputs(PROG ": fatal: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void usage_exit(void)
{
    fputs(usage_text, stderr);
    exit(1);
}

static void parse_args(int argc, char **argv, struct scron_opts *o)
{
    int c, actions = 0;
    struct passwd *pw;

    o->action = INSTALL;
    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'e': o->action = EDIT, actions++; break;
        case 'l': o->action = LIST, actions++; break;
        case 'r': o->action = REMOVE, actions++; break;
        case 'u': o->user = optarg; break;
        case 'v': break;
        case 'V': cmd_print_version(); exit(0);
        case OPT_HELP:
            cmd_print_help(stdout, usage_text, opts, NULL);
            exit(0);
        case OPT_USAGE: fputs(usage_text, stdout); exit(0);
        default: usage_exit();
        }
    }
    if (actions > 1 || (actions && optind < argc) || argc - optind > 1)
        usage_exit();
    if (optind < argc)
        o->file = argv[optind];
    else if (o->action == INSTALL && isatty(STDIN_FILENO))
        o->action = EDIT;
    else if (o->action == INSTALL)
        o->file = "-";
    if (o->action == EDIT && !isatty(STDIN_FILENO))
        fatal("Standard input is not a TTY");
    pw = o->user ? getpwnam(o->user) : getpwuid(getuid());
    if (!pw) {
        if (o->user)
            fatal("Could not find user %s", o->user);
        fatal("getpwuid(%u) failed", (unsigned)getuid());
    }
    o->uid = pw->pw_uid;
    o->user_name = xstrdup(pw->pw_name);
    o->home = xstrdup(pw->pw_dir);
}

/* A request body naming the user when -u was given. */
static json_t *user_body(const struct scron_opts *o)
{
    json_t *b = json_object();

    if (o->user)
        json_object_set_new(b, "user_id", json_integer(o->uid));
    return b;
}

/* The whole of 'fd' as a string; NULL with errno. */
static char *read_all(int fd)
{
    size_t len = 0, cap = 4096;
    char *buf = xzalloc(cap);
    ssize_t n;

    while ((n = read(fd, buf + len, cap - len - 1)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            free(buf);
            return NULL;
        }
        len += (size_t)n;
        if (len + 1 == cap)
            buf = xrealloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    return buf;
}

static char *read_file(const char *path)
{
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
                               : STDIN_FILENO;
    char *text;

    if (fd < 0)
        fatal("failed to open %s", path);
    if (!(text = read_all(fd)))
        fatal("failed to read %s: %s", path, strerror(errno));
    if (fd != STDIN_FILENO)
        close(fd);
    return text;
}

/* The controller's copy, disabled lines marked; NULL when none. */
static char *fetch(const struct scron_opts *o)
{
    json_t *resp = NULL;
    drv_error_t error = {{0}};
    char *text;

    if (cmd_rpc(PROG, "crontab_get", user_body(o), &resp, &error) < 0) {
        if (errno == EDRV_JOB_SCRIPT_MISSING)
            return NULL;
        fatal("slurm_request_crontab failed: %s", error.text);
    }
    text = scrontab_file_mark(
        json_string_value(json_object_get(resp, "text")) ?: "",
        json_object_get(resp, "disabled"), "#DISABLED: ");
    json_decref(resp);
    return text;
}

/* Lines first..last of a refused file (0: none known). */
struct bad_lines {
    int first, last;
    bool in_file;    /* scrontab found them (else the controller) */
};

/* "lines A-B: reason" (the controller's refusal) as Slurm prints it,
 * then its lines in *bad. */
static void print_refusal(int errnum, const char *text, struct bad_lines *bad)
{
    const char *colon = strstr(text, ": ");
    int n = !strncmp(text, "lines ", 6) && colon ? (int)(colon - text - 6)
                                                 : 0;

    printf("There was an issue with the job submission on lines %.*s\n"
           "The error code return was: %s\n"
           "The error message was: %s\n",
           n, n ? text + 6 : "", drv_strerror(errnum),
           n ? colon + 2 : text);
    if (!n || sscanf(text + 6, "%d-%d", &bad->first, &bad->last) != 2)
        bad->first = bad->last = 0;
}

/* Check 'text' and send it.  Returns the exit status; a refused file's
 * lines in *bad. */
static int install(const struct scron_opts *o, const char *text,
                   struct bad_lines *bad)
{
    int line;
    json_t *entries = scrontab_file_entries(text, o->home, &line, stderr);
    json_t *body, *resp = NULL;
    drv_error_t error = {{0}};

    bad->first = bad->last = 0;
    bad->in_file = !entries;
    if (!entries) {
        printf("There are errors in your crontab.\n");
        bad->first = bad->last = line;
        return 1;
    }
    body = user_body(o);
    json_object_set_new(body, "text", json_string(text));
    json_object_set_new(body, "entries", entries);
    if (cmd_rpc(PROG, "crontab_set", body, &resp, &error) < 0) {
        if (errno == EDRV_DISABLED || errno == EDRV_ACCESS_DENIED
            || errno == EDRV_CTLD_COMMUNICATIONS_CONNECTION)
            fatal("%s", error.text);
        print_refusal(errno, error.text, bad);
        return 1;
    }
    json_decref(resp);
    return 0;
}

/* -e's question after a refused file, as Slurm's: true for y. */
static bool ask_retry(const struct bad_lines *bad)
{
    int c = 0;

    printf(bad->in_file ? "The failed line(s) is commented out with #BAD:\n"
                        : "The failed lines are commented out with #BAD:\n");
    while (c != 'y' && c != 'n') {
        printf("Do you want to retry the edit? (y/n) ");
        fflush(stdout);
        do {
            if ((c = getchar()) == EOF)
                return false;
        } while (c == '\n');
        c = c == 'Y' ? 'y' : c == 'N' ? 'n' : c;
    }
    return c == 'y';
}

/* 'text' with lines bad->first..last marked "#BAD: ".  Caller frees. */
static char *mark_bad(const char *text, const struct bad_lines *bad)
{
    json_t *lines = json_array();
    char *out;

    for (int l = bad->first; l && l <= bad->last; l++)
        json_array_append_new(lines, json_integer(l));
    out = scrontab_file_mark(text, lines, "#BAD: ");
    json_decref(lines);
    return out;
}

/* Write 'text' to a new private temporary file; its path (caller
 * frees). */
static char *temp_file(const char *text)
{
    const char *dir = getenv("TMPDIR");
    char *path = NULL;
    int fd;

    if (asprintf(&path, "%s/scrontab-XXXXXX", dir && *dir ? dir : "/tmp")
        < 0)
        fatal("out of memory");
    umask(077);
    if ((fd = mkstemp(path)) < 0)
        fatal("error creating temp crontab file '%s': %s", path,
              strerror(errno));
    if (fd_write_all(fd, text, strlen(text)) < 0) {
        unlink(path);
        fatal("error writing to temp crontab file '%s': %s", path,
              strerror(errno));
    }
    close(fd);
    return path;
}

/* Run the editor on 'path'; exits on failure. */
static void run_editor(const char *path)
{
    const char *ed = getenv("VISUAL");
    pid_t pid;
    int status;

    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = "vi";
    if ((pid = fork()) < 0)
        fatal("cannot fork");
    if (pid == 0) {
        execlp(ed, ed, path, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (status) {
        unlink(path);
        fatal("editor returned non-zero exit code");
    }
}

static const char default_crontab[] =
    "# Welcome to scrontab, Slurm's cron-like interface.\n"
    "#\n"
    "# Edit this file to submit recurring jobs to be run by Slurm.\n"
    "#\n"
    "# Note that jobs will be run based on the Slurm controller's\n"
    "# time and timezone.\n"
    "#\n"
    "# Lines must either be valid entries, comments (start with '#'),\n"
    "# or blank.\n"
    "#\n"
    "# Lines starting with #SCRON will be parsed for options to use\n"
    "# with the next cron line. E.g., \"#SCRON --time 1\" would request\n"
    "# a one minute timelimit be applied. See the sbatch man page for\n"
    "# options, although note that not all options are supported here.\n"
    "#\n"
    "# For example, the following line (when uncommented) would request\n"
    "# a job be run at 5am each day.\n"
    "# 0 5 * * * /my/script/to/run\n"
    "#\n"
    "# min hour day-of-month month day-of-week command\n";

/* Run the editor on 'text' (NULL: the example); what it left. */
static char *edit_once(const char *text)
{
    char *path = temp_file(text ? text : default_crontab), *edited;
    int fd;

    run_editor(path);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0
        || !(edited = read_all(fd))) {
        int e = errno;
        unlink(path);
        fatal("error reopening temp crontab file '%s': %s", path,
              strerror(e));
    }
    close(fd);
    unlink(path);
    free(path);
    return edited;
}

/* -e: edit until the file is taken, or the user gives up (exit 0, as
 * Slurm's "n"). */
static int edit(const struct scron_opts *o)
{
    char *text = fetch(o), *edited;
    struct bad_lines bad;
    int rc;

    for (;;) {
        edited = edit_once(text);
        free(text);
        rc = install(o, edited, &bad);
        if (rc == 0 || !bad.first || !ask_retry(&bad)) {
            free(edited);
            return rc && bad.first ? 0 : rc;
        }
        text = mark_bad(edited, &bad);
        free(edited);
    }
}

int main(int argc, char **argv)
{
    struct scron_opts o = {0};
    const char *params;
    drv_error_t error = {{0}};
    char *text;
    int rc = 0;

    parse_args(argc, argv, &o);
    params = cmd_conf(PROG)->scron_params;
    if (!params || !strcasestr(params, "enable"))
        fatal("scrontab is disabled on this cluster");
    switch (o.action) {
    case REMOVE:
        if (cmd_rpc(PROG, "crontab_remove", user_body(&o), NULL, &error) < 0)
            fatal("slurm_remove_crontab failed: %s", error.text);
        break;
    case LIST:
        if (!(text = fetch(&o))) {
            printf("no crontab for %s\n", o.user_name);
            rc = 1;
            break;
        }
        fputs(text, stdout);
        free(text);
        break;
    case EDIT:
        rc = edit(&o);
        break;
    case INSTALL: {
        struct bad_lines bad;
        text = read_file(o.file);
        rc = install(&o, text, &bad);
        free(text);
        break;
    }
    }
    free(o.user_name);
    free(o.home);
    return rc;
}
