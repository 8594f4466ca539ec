/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_opt.c - sbatch's option table and the job description built from it
 *
 * One row per option drives getopt_long (argv and #SBATCH lines), the
 * SBATCH_* variables and --help.  Messages, exit statuses and the order in
 * which sources override each other follow Slurm 22.05's sbatch.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "common/cpubind.h"
#include "common/error.h"
#include "common/mailtype.h"
#include "common/signame.h"
#include "common/sizefmt.h"
#include "common/taskdist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "cmd/lib/sbatch_files.h"
#include "cmd/lib/sbatch_opt.h"
#include "cmd/lib/sbatch_refuse.h"
#include "cmd/lib/slurm_texts.h"

/* Slurm's NICE_OFFSET - 3: the largest |--nice| it accepts. */
#define NICE_MAX 2147483645LL
/* getopt_long values of long-only rows: LONG_BASE + row index. */
#define LONG_BASE 0x100

struct optdef;
/* Apply one value.  Returns 0, -1 with 'e' set, or (first pass only) an
 * enum sbatch_action for --help/--usage/--version.
 */
typedef int (*set_f)(struct sbatch_opts *o, const struct optdef *d,
                     const char *arg, struct sbatch_error *e);

enum section { SEC_NONE, SEC_PARALLEL, SEC_CONSTRAINT, SEC_CONSUMABLE,
               SEC_AFFINITY, SEC_AFFINITY2, SEC_GPU, SEC_HELP, SEC_OTHER,
               SEC_COUNT };

enum optflag {
    F_EARLY = 1,     /* command line only, acted on in the first pass */
    F_HELP_ONLY = 2, /* a --help line, not an option */
    /* Rows only some commands take (none of these: every command). */
    F_SBATCH = 4,    /* sbatch only (--wrap, --array, -o ...) */
    F_SRUN = 8,      /* srun only (--label, --pty) */
    F_ALLOC = 16,    /* salloc and srun (--immediate) */
    F_NO_SALLOC = 32, /* sbatch and srun (-o, -e, -i: srun's per task) */
    F_SALLOC = 64,   /* salloc only (--no-shell) */
};

struct optdef {
    const char *name;      /* long name without "--" */
    int short_opt;         /* letter, or 0 */
    int has_arg;           /* getopt's no/required/optional_argument */
    const char *env;       /* SBATCH_* input variable, or NULL */
    set_f set;
    size_t field;          /* offsetof() target of the generic setters */
    unsigned flags;        /* enum optflag */
    enum section sec;      /* --help section; SEC_NONE: not listed */
    const char *help_arg;  /* "=jobname" */
    const char *help;      /* description; '\n' starts a continuation */
    const char *help_left; /* whole left column, when not generated */
};

struct sbatch_cli_opt {
    const struct optdef *def;
    char *arg;
};

static const char *const section_title[SEC_COUNT] = {
    [SEC_PARALLEL] = "Parallel run options:",
    [SEC_CONSTRAINT] = "Constraint options:",
    [SEC_CONSUMABLE] = "Consumable resources related options:",
    [SEC_AFFINITY] = "Affinity/Multi-core options: (when the task/affinity "
                     "plugin is enabled)",
    [SEC_GPU] = "GPU scheduling options:",
    [SEC_HELP] = "Help options:",
    [SEC_OTHER] = "Other options:",
};

static const char usage_text[] =
    "Usage: sbatch [-N nnodes] [-n ntasks]\n"
    "              [-c ncpus] [-r n] [-p partition]"
    " [--hold] [--parsable] [-t minutes]\n"
    "              [-D path] [--no-kill] [--overcommit]\n"
    "              [--input file] [--output file] [--error file]\n"
    "              [--time-min=minutes]"
    " [--licenses=names] [--clusters=cluster_names]\n"
    "              [--chdir=directory]"
    " [--oversubscribe] [-m dist] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user]\n"
    "              [--contiguous] [--mincpus=n]"
    " [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name]"
    " [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type]"
    " [--mail-user=user] [--nice[=value]] [--wait]\n"
    "              [--requeue] [--no-requeue]"
    " [--ntasks-per-node=n] [--propagate]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type]"
    " [--mem-per-cpu=MB] [--qos=qos] [--gres=list]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--cpu-freq=min[-max[:gov]]]"
    " [--power=flags] [--gres-flags=opts]\n"
    "              [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
    "              [--core-spec=cores] [--thread-spec=threads]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--array=index_values]"
    " [--profile=...] [--ignore-pbs] [--spread-job]\n"
    "              [--export[=names]]"
    " [--export-file=file|fd] [--delay-boot=mins]\n"
    "              [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n]"
    " [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n]"
    " [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              executable [args...]\n";

/* ------------------------------------------------------------------ */
/* Errors                                                              */

static int fail(struct sbatch_error *e, int code, const char *level,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct sbatch_error *e, int code, const char *level,
                const char *fmt, ...)
{
    va_list ap;

    e->exit_code = code;
    e->level = level;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof(e->text), fmt, ap);
    va_end(ap);
    return -1;
}

void sbatch_error_print(const struct sbatch_error *e, FILE *f)
{
    sbatch_error_print_as(e, "sbatch", f);
}

void sbatch_error_print_as(const struct sbatch_error *e, const char *prog,
                           FILE *f)
{
    const char *p = e->text;

    while (*p) {
        size_t n = strcspn(p, "\n");

        if (e->level)
            fprintf(f, "%s: %s: %.*s\n", prog, e->level, (int)n, p);
        else
            fprintf(f, "%.*s\n", (int)n, p);
        p += n;
        if (*p == '\n')
            p++;
    }
}

static void info(const struct sbatch_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void info(const struct sbatch_opts *o, const char *fmt, ...)
{
    va_list ap;

    if (!o->msgs)
        return;
    fprintf(o->msgs, "%s: ", o->prog);
    va_start(ap, fmt);
    vfprintf(o->msgs, fmt, ap);
    va_end(ap);
    fputc('\n', o->msgs);
}

/* ------------------------------------------------------------------ */
/* Number parsers with Slurm's messages                                */

/* Slurm's parse_int(): a whole number >= 0 (> 0 when 'positive'). */
static int parse_int(const char *name, const char *s, bool positive, int *out,
                     struct sbatch_error *e)
{
    char *end;
    long v;

    errno = 0;
    v = s ? strtol(s, &end, 10) : -1;
    if (!s || !*s || *end || v < 0 || (positive && v == 0))
        return fail(e, 1, "error", "Invalid numeric value \"%s\" for %s.",
                    s ? s : "", name);
    if (errno == ERANGE || v > INT_MAX)
        return fail(e, 1, "error", "Numeric argument (%ld) too large for %s.",
                    v, name);
    *out = (int)v;
    return 0;
}

/* v * by, or LONG_MAX when that is more (v >= 0, by > 0): a count is
 * capped afterwards, never wrapped (fuzz_sbatch found -B 7777...:7M). */
static long saturated_mul(long v, long by)
{
    return v > LONG_MAX / by ? LONG_MAX : v * by;
}

/* A node count with Slurm's optional k/m suffix; -1 when malformed. */
static long node_count(const char *s)
{
    char *end;
    long v;

    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    v = strtol(s, &end, 10);
    if (v > INT_MAX) /* also strtol's saturation: nothing to multiply */
        return -1;
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024, end++;
    while (isspace((unsigned char)*end))
        end++;
    return (*end || v > INT_MAX) ? -1 : v;
}

/* ------------------------------------------------------------------ */
/* Setters                                                             */

#define FIELD(o, d, type) ((type *)((char *)(o) + (d)->field))
#define CFIELD(o, d, type) ((const type *)((const char *)(o) + (d)->field))

static int set_str(struct sbatch_opts *o, const struct optdef *d,
                   const char *arg, struct sbatch_error *e)
{
    char **p = FIELD(o, d, char *);

    (void)e;
    free(*p);
    *p = xstrdup(arg);
    return 0;
}

static int set_flag(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    (void)arg;
    (void)e;
    *FIELD(o, d, bool) = true;
    return 0;
}

/* Positive integers: --cpus-per-task, --ntasks-per-node. */
static int set_posint(struct sbatch_opts *o, const struct optdef *d,
                      const char *arg, struct sbatch_error *e)
{
    char name[64];

    snprintf(name, sizeof(name), "--%s", d->name);
    return parse_int(name, arg, true, FIELD(o, d, int), e);
}

/* Options Drover accepts but does not model are passed on as they are. */
static void pass_key(const struct optdef *d, char *key, size_t size)
{
    snprintf(key, size, "%s", d->name);
    for (char *p = key; *p; p++)
        if (*p == '-')
            *p = '_';
}

/* A Drover rule (the controller's too, ctld/mail.h): mail(1) would read a
 * recipient beginning with '-' as an option. */
static bool valid_mail_user(const char *s)
{
    return s[0] != '-';
}

static bool valid_yes_no(const char *s)
{
    return !strcasecmp(s, "yes") || !strcasecmp(s, "no");
}

static bool valid_zero_one(const char *s)
{
    return !strcmp(s, "0") || !strcmp(s, "1");
}

static bool valid_size(const char *s)
{
    uint64_t mib;

    return sizefmt_parse_mib(s, &mib, NULL) == 0;
}

/* Options passed on to the controller whose values sbatch checks first,
 * with Slurm's message: "Invalid --NAME specification" (exit 255), or for
 * 'numeric' ones Slurm's parse_int() message (exit 1). */
static const struct {
    const char *name;
    bool (*valid)(const char *arg);
    bool numeric;
} pass_checks[] = {
    {"mail-user", valid_mail_user, false},
    {"kill-on-invalid-dep", valid_yes_no, false},
    {"wait-all-nodes", valid_zero_one, false},
    {"tmp", valid_size, false},
    {"ntasks-per-gpu", NULL, true},
    {"cpus-per-gpu", NULL, true},
    {"mincpus", NULL, true},
    {"wait", NULL, true}, /* srun's -W seconds */
};

/* --cpu-bind, --gpu-bind, --hint (common/cpubind.h); --cpu-bind=help
 * goes through to srun, which prints the help.  Returns 0, or -1 with
 * Slurm's "error: ..." line (exit 255). */
static int check_bind(const struct optdef *d, const char *arg,
                      struct sbatch_error *e)
{
    drv_error_t error;
    struct cpubind cb;
    struct gpubind gb;
    enum cpubind_type type;
    bool one;
    int rc = 0;

    if (!strcmp(d->name, "cpu-bind") && strcasecmp(arg, "help")) {
        rc = cpubind_parse(arg, &cb, &error);
        cpubind_clear(&cb);
    } else if (!strcmp(d->name, "gpu-bind")) {
        rc = gpubind_parse(arg, &gb, &error);
        gpubind_clear(&gb);
    } else if (!strcmp(d->name, "hint")) {
        rc = cpubind_hint(arg, &type, &one, &error);
    }
    return rc < 0 ? fail(e, 255, "error", "%s", error.text) : 0;
}

static int check_pass(const struct optdef *d, const char *arg,
                      struct sbatch_error *e)
{
    drv_error_t error;
    struct taskdist dist;
    int n;

    if (!arg)
        return 0;
    if (check_bind(d, arg, e) < 0)
        return -1;
    /* -m: Slurm's forms (common/taskdist.h), with its one or two lines */
    if (!strcmp(d->name, "distribution")
        && taskdist_parse(arg, getenv("SLURM_DIST_PLANESIZE"), &dist,
                          &error) < 0)
        return fail(e, 255, "error", "%s", error.text);
    for (size_t i = 0; i < sizeof(pass_checks) / sizeof(pass_checks[0]); i++) {
        if (strcmp(pass_checks[i].name, d->name))
            continue;
        if (pass_checks[i].numeric) {
            char opt[80];

            snprintf(opt, sizeof(opt), "--%s", d->name);
            return parse_int(opt, arg, true, &n, e);
        }
        if (!pass_checks[i].valid(arg))
            return fail(e, 255, "error", "Invalid --%s specification",
                        d->name);
    }
    return 0;
}

/* Slurm's resource range "N" or "N-M" (the request is the minimum N),
 * each with an optional k/m suffix, or "*" or "" for none (0).  A count
 * beyond a node's 16-bit one asks for more than any node has: 65534.
 * Returns 0, or -1 with Slurm's "Invalid numeric value" (exit 1) naming
 * 'what'. */
static int resource_min(const char *arg, const char *what, int *out,
                        struct sbatch_error *e)
{
    const char *p = arg;
    long v[2] = {0, 0};
    int n = 0;

    if (!*arg || !strcmp(arg, "*")) {
        *out = 0;
        return 0;
    }
    while (n < 2) {
        char *end;

        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        v[n] = strtol(p, &end, 10);
        if (errno)
            v[n] = LONG_MAX;
        if (*end == 'k' || *end == 'K')
            v[n] = saturated_mul(v[n], 1024), end++;
        else if (*end == 'm' || *end == 'M')
            v[n] = saturated_mul(v[n], 1024 * 1024), end++;
        p = end;
        n++;
        if (*p != '-')
            break;
        p++;
    }
    if (*p || (n == 2 && v[1] <= 0))
        goto bad;
    *out = v[0] > 65534 ? 65534 : (int)v[0];
    return 0;
bad:
    return fail(e, 1, "error", "Invalid numeric value \"%s\" for %s.", arg,
                what);
}

/* --sockets-per-node, --cores-per-socket: resource ranges; Slurm 22.05's
 * --threads-per-core is a positive number (its parse_int()). */
static int set_topo(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    int *out = FIELD(o, d, int);

    if (strcmp(d->name, "threads-per-core"))
        return resource_min(arg, d->name, out, e);
    if (parse_int("--threads-per-core", arg, true, out, e) < 0)
        return -1;
    if (*out > 65534)
        *out = 65534;
    return 0;
}

/* -B S[:C[:T]]: all three (a part left out asks nothing); a fourth part
 * is ignored, as Slurm's verify_socket_core_thread_count() does. */
static int set_extra_node_info(struct sbatch_opts *o, const struct optdef *d,
                               const char *arg, struct sbatch_error *e)
{
    static const char *const what[] = {"first arg of -B", "second arg of -B",
                                       "third arg of -B"};
    int *field[] = {&o->sockets_per_node, &o->cores_per_socket,
                    &o->threads_per_core};
    char *copy = xstrdup(arg), *p = copy;
    int rc = 0;

    (void)d;
    for (int i = 0; i < 3 && rc == 0; i++) {
        char *part = p ? strsep(&p, ":") : "";

        rc = resource_min(part, what[i], field[i], e);
    }
    free(copy);
    return rc;
}

/* --mail-type: sent as Slurm's MAIL_* bits (common/mailtype.h); a bad
 * word is Slurm's "Invalid --mail-type specification" (exit 255). */
static int set_mail_type(struct sbatch_opts *o, const struct optdef *d,
                         const char *arg, struct sbatch_error *e)
{
    uint32_t bits;

    if (mailtype_parse(arg, &bits) < 0)
        return fail(e, 255, "error", "Invalid --%s specification", d->name);
    json_object_set_new(o->extra, "mail_type", json_integer(bits));
    return 0;
}

static int set_pass(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    const char *why = sbatch_option_refusal(d->name, arg);
    char key[64];

    if (check_pass(d, arg, e) < 0) /* a bad value: Slurm's message */
        return -1;
    if (why)
        return fail(e, 1, "error", "--%s is not supported by Drover (%s)",
                    d->name, why);
    pass_key(d, key, sizeof(key));
    json_object_set_new(o->extra, key,
                        arg ? json_string(arg) : json_true());
    return 0;
}

/* -M: kept for the command, which checks it names this cluster
 * (cmd_clusters_check(); Drover has one cluster, and -M naming it is what
 * Open OnDemand and other portals pass). */
static int set_clusters(struct sbatch_opts *o, const struct optdef *d,
                        const char *arg, struct sbatch_error *e)
{
    (void)d;
    (void)e;
    free(o->clusters);
    o->clusters = xstrdup(arg);
    return 0;
}

/* -F: the file's names become -w's list. */
static int set_nodefile(struct sbatch_opts *o, const struct optdef *d,
                        const char *arg, struct sbatch_error *e)
{
    char err[512];
    char *list = sbatch_read_nodefile(arg, err, sizeof(err));

    (void)d;
    if (!list)
        return fail(e, 1, "error", "%s", err);
    json_object_set_new(o->extra, "nodelist", json_string(list));
    free(list);
    return 0;
}

/* sbatch --export-file: read now (a descriptor may not stay open), added
 * to the job's environment over what --export selects. */
static int set_export_file(struct sbatch_opts *o, const struct optdef *d,
                           const char *arg, struct sbatch_error *e)
{
    char err[512];

    (void)d;
    json_object_clear(o->export_file_env);
    if (sbatch_read_export_file(arg, o->export_file_env, err,
                                sizeof(err)) < 0)
        return fail(e, 1, "error", "%s", err);
    return 0;
}

/* salloc --bell / --no-bell: 1 or 0 (-1: Slurm's default, ring only
 * after a wait of ten seconds or more). */
static int set_bell(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    (void)arg;
    (void)e;
    o->bell = strcmp(d->name, "bell") ? 0 : 1;
    return 0;
}

/* salloc -K[signal]: the signal for the command when the allocation is
 * revoked; SIGTERM when none is named (Slurm's default). */
static int set_kill_command(struct sbatch_opts *o, const struct optdef *d,
                            const char *arg, struct sbatch_error *e)
{
    int sig = arg && *arg ? sig_parse(arg) : SIGTERM;

    (void)d;
    if (sig < 0)
        return fail(e, 1, "error", "Invalid signal name: %s", arg);
    o->kill_command_signal = sig;
    return 0;
}

/* -k/--no-kill[=off]: the job survives the failure of a node other than
 * its batch host (sent as "no_kill"). */
static int set_no_kill(struct sbatch_opts *o, const struct optdef *d,
                       const char *arg, struct sbatch_error *e)
{
    (void)d;
    if (arg && *arg && strcasecmp(arg, "off"))
        return fail(e, 255, "error", "Invalid --no-kill specification");
    json_object_set_new(o->extra, "no_kill",
                        json_boolean(!arg || !*arg));
    return 0;
}

/* salloc --get-user-env (Moab's, root with --uid): refused. */
static int set_salloc_user_env(struct sbatch_opts *o, const struct optdef *d,
                               const char *arg, struct sbatch_error *e)
{
    (void)o;
    (void)d;
    (void)arg;
    return fail(e, 1, "error", "--get-user-env is not supported by Drover "
                "(salloc's command runs in the caller's environment)");
}

/* srun -T N: checked as Slurm checks it (a positive count), no more. */
static int set_threads(struct sbatch_opts *o, const struct optdef *d,
                       const char *arg, struct sbatch_error *e)
{
    int n;

    (void)o;
    (void)d;
    return parse_int("--threads", arg, true, &n, e);
}

/* -o/-e/-i: Slurm reads "none" as /dev/null. */
static int set_path(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    return set_str(o, d, strcasecmp(arg, "none") ? arg : "/dev/null", e);
}

static int set_chdir(struct sbatch_opts *o, const struct optdef *d,
                     const char *arg, struct sbatch_error *e)
{
    (void)d;
    (void)e;
    free(o->work_dir);
    if (arg[0] == '/')
        o->work_dir = xstrdup(arg);
    else
        o->work_dir = xasprintf("%s/%s", o->cwd, arg);
    return 0;
}

static int set_nodes(struct sbatch_opts *o, const struct optdef *d,
                     const char *arg, struct sbatch_error *e)
{
    const char *dash = strchr(arg, '-');
    long min, max;

    (void)d;
    if (!dash) {
        if ((min = max = node_count(arg)) < 0)
            return fail(e, 255, "error", "\"%s\" is not a valid node count",
                        arg);
        if (min == 0) /* Slurm's controller refuses it: send it on */
            min = max = -1;
    } else {
        char *lo = xasprintf("%.*s", (int)(dash - arg), arg);

        min = node_count(lo);
        max = node_count(dash + 1);
        if (min < 0 || max < 0) {
            fail(e, 255, "error", "\"%s\" is not a valid node count",
                 min < 0 ? lo : dash + 1);
            free(lo);
            return -1;
        }
        free(lo);
        if (min == 0)
            min = 1;
        if (max < min)
            return fail(e, 255, "error",
                        "Maximum node count %ld is less than minimum node "
                        "count %ld", max, min);
    }
    o->nodes_min = (int)min;
    o->nodes_max = (int)max;
    o->nodes_src = o->cur_src;
    return 0;
}

static int set_ntasks(struct sbatch_opts *o, const struct optdef *d,
                      const char *arg, struct sbatch_error *e)
{
    (void)d;
    if (parse_int("--ntasks", arg, true, &o->ntasks, e) < 0)
        return -1;
    o->ntasks_set = true;
    o->ntasks_src = o->cur_src;
    return 0;
}

static int set_mem(struct sbatch_opts *o, const struct optdef *d,
                   const char *arg, struct sbatch_error *e)
{
    bool per_cpu = !strcmp(d->name, "mem-per-cpu");
    uint64_t mib;

    if (sizefmt_parse_mib(arg, &mib, NULL) < 0 || mib > INT64_MAX)
        return fail(e, 255, "error", "Invalid --%s specification", d->name);
    if (per_cpu) {
        o->mem_per_cpu_mib = (int64_t)mib;
        o->mem_per_cpu_src = o->cur_src;
    } else {
        o->mem_per_node_mib = (int64_t)mib;
        o->mem_src = o->cur_src;
    }
    return 0;
}

/* A limit of 0 means none, as in Slurm.  Slurm rounds "MM:SS" up to whole
 * minutes; Drover keeps the seconds (docs/compatibility.md).
 */
static int set_time(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    int64_t secs;

    (void)d;
    if (timefmt_parse_limit(arg, &secs, NULL) < 0)
        return fail(e, 255, "error", "Invalid --time specification");
    o->time_limit_s = secs == 0 ? TIME_INFINITE : secs;
    o->time_set = true;
    return 0;
}

static int set_exclusive(struct sbatch_opts *o, const struct optdef *d,
                         const char *arg, struct sbatch_error *e)
{
    (void)d;
    json_object_del(o->extra, "exclusive_mode");
    json_object_del(o->extra, "oversubscribe");
    o->exclusive = !arg || !strcasecmp(arg, "exclusive");
    if (o->exclusive)
        return 0;
    if (!strcasecmp(arg, "user") || !strcasecmp(arg, "mcs"))
        json_object_set_new(o->extra, "exclusive_mode", json_string(arg));
    else if (!strcasecmp(arg, "oversubscribe"))
        json_object_set_new(o->extra, "oversubscribe", json_true());
    else
        return fail(e, 255, "error", "Invalid --exclusive specification");
    return 0;
}

static int set_requeue(struct sbatch_opts *o, const struct optdef *d,
                       const char *arg, struct sbatch_error *e)
{
    (void)arg;
    (void)e;
    o->requeue = strcmp(d->name, "no-requeue") != 0;
    return 0;
}

static int set_nice(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    long long v = arg ? strtoll(arg, NULL, 10) : 100;

    (void)d;
    if (llabs(v) > NICE_MAX)
        return fail(e, 255, "error",
                    "Invalid --nice value, out of range (+/- %lld)", NICE_MAX);
    o->nice = (int)v;
    o->nice_set = true;
    return 0;
}

static int set_gres(struct sbatch_opts *o, const struct optdef *d,
                    const char *arg, struct sbatch_error *e)
{
    if (!strcasecmp(arg, "none")) {
        FREE_NULL(o->gres);
        return 0;
    }
    return set_str(o, d, arg, e);
}

static int set_count(struct sbatch_opts *o, const struct optdef *d,
                     const char *arg, struct sbatch_error *e)
{
    int *count = FIELD(o, d, int);

    (void)e;
    if (!strcmp(d->name, "quiet") || !arg)
        (*count)++;
    else
        *count = atoi(arg);
    return 0;
}

/* salloc/srun -I[secs]: Slurm's default is one second. */
static int set_immediate(struct sbatch_opts *o, const struct optdef *d,
                         const char *arg, struct sbatch_error *e)
{
    if (!arg) {
        o->immediate = 1;
        return 0;
    }
    if (parse_int(d->name, arg, true, &o->immediate, e) < 0)
        return -1;
    return 0;
}

static int set_action(struct sbatch_opts *o, const struct optdef *d,
                      const char *arg, struct sbatch_error *e)
{
    (void)o;
    (void)arg;
    (void)e;
    if (!strcmp(d->name, "help"))
        return SBATCH_HELP;
    if (!strcmp(d->name, "usage"))
        return SBATCH_USAGE;
    return SBATCH_VERSION;
}

/* ------------------------------------------------------------------ */
/* The option table                                                    */

#define NOA no_argument
#define REQ required_argument
#define OPTA optional_argument
#define AT(f) offsetof(struct sbatch_opts, f)
/* Accepted and passed on under the option's name (set_pass). */
#define PASS set_pass, 0

/* Rows appear in --help in table order, section by section, as Slurm
 * 22.05 prints them.  Rows with SEC_NONE are accepted but not listed.
 */
static const struct optdef opt_table[] = {
    {"array", 'a', REQ, "SBATCH_ARRAY_INX", PASS, F_SBATCH, SEC_PARALLEL,
     "=indexes", "job array index values", NULL},
    {"account", 'A', REQ, "SBATCH_ACCOUNT", PASS, 0, SEC_PARALLEL,
     "=name", "charge job to specified account", NULL},
    {"bb", 0, REQ, "SBATCH_BURST_BUFFER", PASS, 0, SEC_PARALLEL,
     "=<spec>", "burst buffer specifications", NULL},
    {"bbf", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=<file_name>", "burst buffer specification file", NULL},
    {"begin", 'b', REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=time", "defer job until HH:MM MM/DD/YY", NULL},
    {"comment", 0, REQ, NULL, set_str, AT(comment), 0, SEC_PARALLEL,
     "=name", "arbitrary comment", NULL},
    {"cpu-freq", 0, REQ, "SBATCH_CPU_FREQ_REQ", PASS, 0, SEC_PARALLEL,
     "=min[-max[:gov]]", "requested cpu frequency (and governor)", NULL},
    {"cpus-per-task", 'c', REQ, NULL, set_posint, AT(cpus_per_task), 0,
     SEC_PARALLEL, "=ncpus", "number of cpus required per task", NULL},
    {"dependency", 'd', REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=type:jobid[:time]",
     "defer job until condition on jobid is satisfied", NULL},
    {"deadline", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=time", "remove the job if no ending possible before\n"
     "this deadline (start > (deadline - time[-min]))", NULL},
    {"delay-boot", 0, REQ, "SBATCH_DELAY_BOOT", PASS, 0, SEC_PARALLEL,
     "=mins", "delay boot for desired node features", NULL},
    {"chdir", 'D', REQ, NULL, set_chdir, 0, 0, SEC_PARALLEL,
     "=directory", "set working directory for batch script", NULL},
    {"error", 'e', REQ, "SBATCH_ERROR", set_path, AT(std_err), F_NO_SALLOC,
     SEC_PARALLEL, "=err", "file for batch script's standard error", NULL},
    {"export", 0, REQ, "SBATCH_EXPORT", set_str, AT(export_env), 0,
     SEC_PARALLEL, "[=names]", "specify environment variables to export",
     NULL},
    {"export-file", 0, REQ, NULL, set_export_file, 0, F_SBATCH, SEC_PARALLEL,
     "=file|fd", "specify environment variables file or file\n"
     "descriptor to export", NULL},
    {"get-user-env", 0, OPTA, "SBATCH_GET_USER_ENV", PASS, F_SBATCH,
     SEC_PARALLEL, "", "load environment from local cluster", NULL},
    {"gid", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=group_id", "group ID to run job as (user root only)", NULL},
    {"preserve-env", 'E', NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "env vars for node and task counts override\n"
     "command-line flags", NULL},
    {"gres", 0, REQ, "SBATCH_GRES", set_gres, AT(gres), 0, SEC_PARALLEL,
     "=list", "required generic resources", NULL},
    {"gres-flags", 0, REQ, "SBATCH_GRES_FLAGS", PASS, 0, SEC_PARALLEL,
     "=opts", "flags related to GRES management", NULL},
    {"hold", 'H', NOA, NULL, set_flag, AT(hold), 0, SEC_PARALLEL,
     "", "submit job in held state", NULL},
    {"ignore-pbs", 0, NOA, "SBATCH_IGNORE_PBS", PASS, F_SBATCH, SEC_PARALLEL,
     "", "Ignore #PBS and #BSUB options in the batch script", NULL},
    {"input", 'i', REQ, "SBATCH_INPUT", set_path, AT(std_in), F_NO_SALLOC,
     SEC_PARALLEL, "=in", "file for batch script's standard input", NULL},
    {"immediate", 'I', OPTA, NULL, set_immediate, 0, F_ALLOC, SEC_PARALLEL,
     "[=secs]", "exit if resources not available in \"secs\"", NULL},
    {"label", 'l', NOA, NULL, set_flag, AT(label), F_SRUN, SEC_PARALLEL,
     "", "prepend task number to lines of stdout/err", NULL},
    {"pty", 0, NOA, NULL, set_flag, AT(pty), F_SRUN, SEC_PARALLEL,
     "", "run task zero in pseudo terminal", NULL},
    {"unbuffered", 'u', NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "do not line-buffer stdout/err", NULL},
    {"kill-on-bad-exit", 'K', OPTA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "[=0|1]", "kill the job if any task terminates with a\n"
     "non-zero exit code", NULL},
    {"exact", 0, NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "use only the resources requested for the step", NULL},
    {"overlap", 0, NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "share resources with other steps", NULL},
    {"jobid", 0, REQ, NULL, set_str, AT(jobid), F_SRUN, SEC_PARALLEL,
     "=id", "run under already allocated job", NULL},
    {"job-name", 'J', REQ, "SBATCH_JOB_NAME", set_str, AT(job_name), 0,
     SEC_PARALLEL, "=jobname", "name of job", NULL},
    {"no-kill", 'k', OPTA, "SBATCH_NO_KILL", set_no_kill, 0, 0, SEC_PARALLEL,
     "", "do not kill job on node failure", NULL},
    {"licenses", 'L', REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=names", "required license, comma separated", NULL},
    {"clusters", 'M', REQ, "SBATCH_CLUSTERS", set_clusters, 0, 0,
     SEC_PARALLEL,
     "=names", "Comma separated list of clusters to issue\n"
     "commands to.  Default is current cluster.\n"
     "Name of 'all' will submit to run on all clusters.\n"
     "NOTE: SlurmDBD must up.", NULL},
    {"container", 0, REQ, "SBATCH_CONTAINER", PASS, 0, SEC_PARALLEL,
     "", "Path to OCI container bundle", NULL},
    /* Pyxis's options, built in (docs/compatibility.md; noded/oci.h) */
    {"container-image", 0, REQ, NULL, PASS, F_NO_SALLOC, SEC_PARALLEL,
     "=image", "[pyxis] OCI image to run in: an OCI layout directory\n"
     "[:tag] or docker-archive:FILE", NULL},
    {"container-mounts", 0, REQ, NULL, PASS, F_NO_SALLOC, SEC_PARALLEL,
     "=SRC:DST[:ro],...", "[pyxis] bind mounts into the container", NULL},
    {"container-workdir", 0, REQ, NULL, PASS, F_NO_SALLOC, SEC_PARALLEL,
     "=dir", "[pyxis] working directory inside the container", NULL},
    {"distribution", 'm', REQ, "SBATCH_DISTRIBUTION", PASS, 0, SEC_PARALLEL,
     "=type", "distribution method for processes to nodes\n"
     "(type = block|cyclic|arbitrary)", NULL},
    {"mail-type", 0, REQ, NULL, set_mail_type, 0, 0, SEC_PARALLEL,
     "=type", "notify on state change: BEGIN, END, FAIL or ALL", NULL},
    {"mail-user", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=user", "who to send email notification for job state\nchanges", NULL},
    {"mcs-label", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=mcs", "mcs label if mcs plugin mcs/group is used", NULL},
    {"mpi", 0, REQ, NULL, set_str, AT(mpi), F_SRUN, SEC_PARALLEL,
     "=type", "type of MPI being used", NULL},
    {"multi-prog", 0, NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "if set the program name specified is the\n"
     "configuration specification for multiple programs", NULL},
    {"ntasks", 'n', REQ, NULL, set_ntasks, 0, 0, SEC_PARALLEL,
     "=ntasks", "number of tasks to run", NULL},
    {"nice", 0, OPTA, NULL, set_nice, 0, 0, SEC_PARALLEL,
     "[=value]", "decrease scheduling priority by value", NULL},
    {"no-requeue", 0, NOA, "SBATCH_NO_REQUEUE", set_requeue, 0, F_SBATCH,
     SEC_PARALLEL, "", "if set, do not permit the job to be requeued", NULL},
    {"ntasks-per-node", 0, REQ, NULL, set_posint, AT(ntasks_per_node), 0,
     SEC_PARALLEL, "=n", "number of tasks to invoke on each node", NULL},
    {"nodes", 'N', REQ, NULL, set_nodes, 0, 0, SEC_PARALLEL,
     "=N", "number of nodes on which to run (N = min[-max])", NULL},
    {"output", 'o', REQ, "SBATCH_OUTPUT", set_path, AT(std_out), F_NO_SALLOC,
     SEC_PARALLEL, "=out", "file for batch script's standard output", NULL},
    {"overcommit", 'O', NOA, "SBATCH_OVERCOMMIT", PASS, 0, SEC_PARALLEL,
     "", "overcommit resources", NULL},
    {"partition", 'p', REQ, "SBATCH_PARTITION", set_str, AT(partition), 0,
     SEC_PARALLEL, "=partition", "partition requested", NULL},
    {"parsable", 0, NOA, NULL, set_flag, AT(parsable), F_SBATCH, SEC_PARALLEL,
     "", "outputs only the jobid and cluster name (if present),\n"
     "separated by semicolon, only on successful submission.", NULL},
    {"power", 0, REQ, "SBATCH_POWER", PASS, 0, SEC_PARALLEL,
     "=flags", "power management options", NULL},
    {"priority", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=value", "set the priority of the job to value", NULL},
    {"profile", 0, REQ, "SBATCH_PROFILE", PASS, 0, SEC_PARALLEL,
     "=value", "enable acct_gather_profile for detailed data\n"
     "value is all or none or any combination of\n"
     "energy, lustre, network or task", NULL},
    {"propagate", 0, OPTA, NULL, PASS, 0, SEC_PARALLEL,
     "[=rlimits]", "propagate all [or specific list of] rlimits", NULL},
    {"quit-on-interrupt", 0, NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "quit on single Ctrl-C", NULL},
    {"qos", 'q', REQ, "SBATCH_QOS", PASS, 0, SEC_PARALLEL,
     "=qos", "quality of service", NULL},
    {"quiet", 'Q', NOA, NULL, set_count, AT(quiet), F_EARLY, SEC_PARALLEL,
     "", "quiet mode (suppress informational messages)", NULL},
    {"reboot", 0, NOA, NULL, PASS, 0, SEC_PARALLEL,
     "", "reboot compute nodes before starting job", NULL},
    {"requeue", 0, NOA, "SBATCH_REQUEUE", set_requeue, 0, F_SBATCH,
     SEC_PARALLEL, "", "if set, permit the job to be requeued", NULL},
    {"oversubscribe", 's', NOA, NULL, PASS, 0, SEC_PARALLEL,
     "", "over subscribe resources with other jobs", NULL},
    {"core-spec", 'S', REQ, "SBATCH_CORE_SPEC", PASS, 0, SEC_PARALLEL,
     "=cores", "count of reserved cores", NULL},
    {"signal", 0, REQ, "SBATCH_SIGNAL", PASS, 0, SEC_PARALLEL,
     "=[[R][B]:]num[@time]",
     "send signal when time limit within time seconds", NULL},
    {"spread-job", 0, NOA, "SBATCH_SPREAD_JOB", PASS, 0, SEC_PARALLEL,
     "", "spread job across as many nodes as possible", NULL},
    {"switches", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=max-switches{@max-time-to-wait}",
     "\nOptimum switches and max time to wait for optimum", NULL},
    {"task-epilog", 0, REQ, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "=program", "run \"program\" after launching task", NULL},
    {"task-prolog", 0, REQ, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "=program", "run \"program\" before launching task", NULL},
    {"thread-spec", 0, REQ, "SBATCH_THREAD_SPEC", PASS, 0, SEC_PARALLEL,
     "=threads", "count of reserved threads", NULL},
    {"time", 't', REQ, "SBATCH_TIMELIMIT", set_time, 0, 0, SEC_PARALLEL,
     "=minutes", "time limit", NULL},
    {"time-min", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=minutes", "minimum time limit (if distinct)", NULL},
    {"uid", 0, REQ, NULL, PASS, 0, SEC_PARALLEL,
     "=user_id", "user ID to run job as (user root only)", NULL},
    {"use-min-nodes", 0, NOA, "SBATCH_USE_MIN_NODES", PASS, 0, SEC_PARALLEL,
     "", "if a range of node counts is given, prefer the\nsmaller count",
     NULL},
    {"verbose", 'v', NOA, NULL, set_count, AT(verbose), F_EARLY,
     SEC_PARALLEL, "",
     "verbose mode (multiple -v's increase verbosity)", NULL},
    {"wait", 'W', NOA, "SBATCH_WAIT", set_flag, AT(wait), F_SBATCH,
     SEC_PARALLEL, "", "wait for completion of submitted job", NULL},
    {"wait", 'W', REQ, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "=sec", "seconds to wait after first task exits\n"
     "before killing job", NULL},
    {"wckey", 0, REQ, "SBATCH_WCKEY", PASS, 0, SEC_PARALLEL,
     "=wckey", "wckey to run job under", NULL},
    {"disable-status", 'X', NOA, NULL, PASS, F_SRUN, SEC_PARALLEL,
     "", "Disable Ctrl-C status feature", NULL},
    {"wrap", 0, REQ, NULL, set_str, AT(wrap), F_EARLY | F_SBATCH, SEC_PARALLEL,
     "[=command string]", "wrap command string in a sh script and submit",
     NULL},

    {"cluster-constraint", 0, REQ, "SBATCH_CLUSTER_CONSTRAINT", PASS, 0,
     SEC_CONSTRAINT, "=[!]list", "specify a list of cluster constraints",
     NULL},
    {"contiguous", 0, NOA, NULL, PASS, 0, SEC_CONSTRAINT,
     "", "demand a contiguous range of nodes", NULL},
    {"constraint", 'C', REQ, "SBATCH_CONSTRAINT", PASS, 0, SEC_CONSTRAINT,
     "=list", "specify a list of constraints", NULL},
    {"nodefile", 'F', REQ, NULL, set_nodefile, 0, 0, SEC_CONSTRAINT,
     "=filename", "request a specific list of hosts", NULL},
    {"mem", 0, REQ, "SBATCH_MEM_PER_NODE", set_mem, 0, 0, SEC_CONSTRAINT,
     "=MB", "minimum amount of real memory", NULL},
    {"mincpus", 0, REQ, NULL, PASS, 0, SEC_CONSTRAINT,
     "=n", "minimum number of logical processors (threads)\nper node", NULL},
    {"reservation", 0, REQ, "SBATCH_RESERVATION", PASS, 0, SEC_CONSTRAINT,
     "=name", "allocate resources from named reservation", NULL},
    {"tmp", 0, REQ, NULL, PASS, 0, SEC_CONSTRAINT,
     "=MB", "minimum amount of temporary disk", NULL},
    {"nodelist", 'w', REQ, NULL, PASS, 0, SEC_CONSTRAINT,
     "=hosts...", "request a specific list of hosts", NULL},
    {"exclude", 'x', REQ, NULL, PASS, 0, SEC_CONSTRAINT,
     "=hosts...", "exclude a specific list of hosts", NULL},

    {"exclusive", 0, OPTA, "SBATCH_EXCLUSIVE", set_exclusive, 0, 0,
     SEC_CONSUMABLE, "[=user]", "allocate nodes in exclusive mode when\n"
     "cpu consumable resource is enabled", NULL},
    {NULL, 0, 0, NULL, NULL, 0, F_HELP_ONLY, SEC_CONSUMABLE,
     NULL, "allocate nodes in exclusive mode when\n"
     "cpu consumable resource is enabled\n"
     "and mcs plugin is enabled", "    --exclusive[=mcs]"},
    {"mem-per-cpu", 0, REQ, "SBATCH_MEM_PER_CPU", set_mem, 0, 0,
     SEC_CONSUMABLE, "=MB", "maximum amount of real memory per allocated\n"
     "cpu required by the job.\n"
     "--mem >= --mem-per-cpu if --mem is specified.", NULL},

    {NULL, 0, 0, NULL, NULL, 0, F_HELP_ONLY, SEC_AFFINITY,
     NULL, "For the following 4 options, you are\n"
     "specifying the minimum resources available for\n"
     "the node(s) allocated to the job.", ""},
    {"sockets-per-node", 0, REQ, NULL, set_topo, AT(sockets_per_node), 0,
     SEC_AFFINITY, "=S", "number of sockets per node to allocate", NULL},
    {"cores-per-socket", 0, REQ, NULL, set_topo, AT(cores_per_socket), 0,
     SEC_AFFINITY, "=C", "number of cores per socket to allocate", NULL},
    {"threads-per-core", 0, REQ, NULL, set_topo, AT(threads_per_core), 0,
     SEC_AFFINITY, "=T", "number of threads per core to allocate", NULL},
    {"extra-node-info", 'B', REQ, NULL, set_extra_node_info, 0, 0,
     SEC_AFFINITY, NULL, "combine request of sockets per node,\n"
     "cores per socket and threads per core.\n"
     "Specify an asterisk (*) as a placeholder,\n"
     "a minimum value, or a min-max range.",
     "-B  --extra-node-info=S[:C[:T]] "},
    {"ntasks-per-core", 0, REQ, NULL, PASS, 0, SEC_AFFINITY2,
     "=n", "number of tasks to invoke on each core", NULL},
    {"ntasks-per-socket", 0, REQ, NULL, PASS, 0, SEC_AFFINITY2,
     "=n", "number of tasks to invoke on each socket", NULL},

    {"cpus-per-gpu", 0, REQ, "SBATCH_CPUS_PER_GPU", PASS, 0, SEC_GPU,
     "=n", "number of CPUs required per allocated GPU", NULL},
    {"gpus", 'G', REQ, "SBATCH_GPUS", set_str, AT(gpus), 0, SEC_GPU,
     "=n", "count of GPUs required for the job", NULL},
    {"gpu-bind", 0, REQ, "SBATCH_GPU_BIND", PASS, 0, SEC_GPU,
     "=...", "task to gpu binding options", NULL},
    {"gpu-freq", 0, REQ, "SBATCH_GPU_FREQ", PASS, 0, SEC_GPU,
     "=...", "frequency and voltage of GPUs", NULL},
    {"gpus-per-node", 0, REQ, "SBATCH_GPUS_PER_NODE", set_str,
     AT(gpus_per_node), 0, SEC_GPU,
     "=n", "number of GPUs required per allocated node", NULL},
    {"gpus-per-socket", 0, REQ, "SBATCH_GPUS_PER_SOCKET", set_str,
     AT(gpus_per_socket), 0, SEC_GPU,
     "=n", "number of GPUs required per allocated socket", NULL},
    {"gpus-per-task", 0, REQ, "SBATCH_GPUS_PER_TASK", PASS, 0, SEC_GPU,
     "=n", "number of GPUs required per spawned task", NULL},
    {"mem-per-gpu", 0, REQ, "SBATCH_MEM_PER_GPU", PASS, 0, SEC_GPU,
     "=n", "real memory required per allocated GPU", NULL},

    {"help", 'h', NOA, NULL, set_action, 0, F_EARLY, SEC_HELP,
     "", "show this help message", NULL},
    {"usage", 0, NOA, NULL, set_action, 0, F_EARLY, SEC_HELP,
     "", "display brief usage message", NULL},
    {"version", 'V', NOA, NULL, set_action, 0, F_EARLY, SEC_OTHER,
     "", "output version information and exit", NULL},

    /* Accepted, not listed by Slurm's --help either. */
    {"tasks", 0, REQ, NULL, set_ntasks, 0, 0, SEC_NONE, NULL, NULL, NULL},
    {"tasks-per-node", 0, REQ, NULL, set_posint, AT(ntasks_per_node), 0,
     SEC_NONE, NULL, NULL, NULL},
    {"cluster", 0, REQ, NULL, PASS, 0, SEC_NONE, NULL, NULL, NULL},
    {"no-shell", 0, NOA, NULL, set_flag, AT(no_shell), F_SALLOC, SEC_NONE,
     NULL, NULL, NULL},
    {"test-only", 0, NOA, NULL, set_flag, AT(test_only), F_NO_SALLOC, SEC_NONE,
     NULL, NULL, NULL},
    {"open-mode", 0, REQ, "SBATCH_OPEN_MODE", PASS, F_SBATCH, SEC_NONE,
     NULL, NULL, NULL},
    {"kill-on-invalid-dep", 0, REQ, NULL, PASS, F_SBATCH, SEC_NONE,
     NULL, NULL, NULL},
    {"ntasks-per-gpu", 0, REQ, "SBATCH_NTASKS_PER_GPU", PASS, 0, SEC_NONE,
     NULL, NULL, NULL},
    {"hint", 0, REQ, "SBATCH_HINT", PASS, 0, SEC_NONE, NULL, NULL, NULL},
    {"acctg-freq", 0, REQ, "SBATCH_ACCTG_FREQ", PASS, 0, SEC_NONE,
     NULL, NULL, NULL},
    {"mem-bind", 0, REQ, "SBATCH_MEM_BIND", PASS, 0, SEC_NONE,
     NULL, NULL, NULL},
    /* Slurm's srun --help lists neither (srun: --cpu-bind=help);
     * droverstepd binds (src/noded/affinity.h). */
    {"cpu-bind", 0, REQ, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"network", 0, REQ, "SBATCH_NETWORK", PASS, 0, SEC_NONE,
     NULL, NULL, NULL},
    {"wait-all-nodes", 0, REQ, "SBATCH_WAIT_ALL_NODES", PASS, 0, SEC_NONE,
     NULL, NULL, NULL},
    {"batch", 0, REQ, "SBATCH_BATCH", PASS, F_SBATCH,
    SEC_NONE, NULL, NULL, NULL},
    /* salloc's terminal bell and -K (salloc.c) */
    {"bell", 0, NOA, NULL, set_bell, 0, F_SALLOC, SEC_NONE, NULL, NULL, NULL},
    {"no-bell", 0, NOA, NULL, set_bell, 0, F_SALLOC, SEC_NONE,
     NULL, NULL, NULL},
    {"kill-command", 'K', OPTA, NULL, set_kill_command, 0, F_SALLOC,
     SEC_NONE, NULL, NULL, NULL},
    {"get-user-env", 0, OPTA, NULL, set_salloc_user_env, 0, F_SALLOC,
     SEC_NONE, NULL, NULL, NULL},
    /* srun -T: Slurm's count of threads sending the launch; droverd's
     * launch path has none to limit (docs/options.md) */
    {"threads", 'T', REQ, NULL, set_threads, 0, F_SRUN, SEC_NONE,
     NULL, NULL, NULL},
    /* srun's own prolog and epilog (srun_script.h) */
    {"prolog", 0, REQ, NULL, set_str, AT(srun_prolog), F_SRUN, SEC_NONE,
     NULL, NULL, NULL},
    {"epilog", 0, REQ, NULL, set_str, AT(srun_epilog), F_SRUN, SEC_NONE,
     NULL, NULL, NULL},
    /* srun options refused (sbatch_refuse.c): known, so never read as an
     * abbreviation of another */
    {"bcast", 0, OPTA, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"bcast-exclude", 0, REQ, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"compress", 0, OPTA, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"send-libs", 0, OPTA, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"het-group", 0, REQ, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"no-allocate", 'Z', NOA, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"relative", 'r', REQ, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"resv-ports", 0, OPTA, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
    {"slurmd-debug", 0, REQ, NULL, PASS, F_SRUN, SEC_NONE, NULL, NULL, NULL},
};

#define OPT_COUNT (sizeof(opt_table) / sizeof(opt_table[0]))

static size_t row_index(const struct optdef *d)
{
    return (size_t)(d - opt_table);
}

/* Whether command 'cmd' takes row 'd'. */
static bool row_ok(const struct optdef *d, enum sbatch_cmd cmd)
{
    switch (cmd) {
    case SBATCH_CMD_SBATCH:
        return !(d->flags & (F_SRUN | F_ALLOC | F_SALLOC));
    case SBATCH_CMD_SALLOC:
        return !(d->flags & (F_SBATCH | F_SRUN | F_NO_SALLOC));
    default:
        return !(d->flags & (F_SBATCH | F_SALLOC));
    }
}

/* The row getopt_long reported as 'c'. */
static const struct optdef *row_for(int c, enum sbatch_cmd cmd)
{
    if (c >= LONG_BASE && (size_t)(c - LONG_BASE) < OPT_COUNT)
        return &opt_table[c - LONG_BASE];
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (opt_table[i].short_opt == c && !(opt_table[i].flags & F_HELP_ONLY)
            && row_ok(&opt_table[i], cmd))
            return &opt_table[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* getopt_long from the table                                          */

struct getopt_tables {
    struct option *longs;
    char shorts[128];
};

static void getopt_tables_build(struct getopt_tables *t, enum sbatch_cmd cmd)
{
    size_t n = 0, s = 0;

    t->longs = xzalloc((OPT_COUNT + 1) * sizeof(*t->longs));
    t->shorts[s++] = '+'; /* stop at the script name, as Slurm does */
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct optdef *d = &opt_table[i];

        if ((d->flags & F_HELP_ONLY) || !row_ok(d, cmd))
            continue;
        t->longs[n].name = d->name;
        t->longs[n].has_arg = d->has_arg;
        t->longs[n].val = d->short_opt ? d->short_opt : LONG_BASE + (int)i;
        n++;
        if (d->short_opt) {
            t->shorts[s++] = (char)d->short_opt;
            if (d->has_arg != no_argument)
                t->shorts[s++] = ':';
            if (d->has_arg == optional_argument)
                t->shorts[s++] = ':';
        }
    }
    t->shorts[s] = '\0';
}

/* Run getopt_long over argv (argv[0] is replaced by "sbatch" so that
 * getopt's messages read as Slurm's).  Calls 'fn' for each option; stops
 * at the first failure.  Returns what 'fn' returned, or -1 after an
 * unknown option, with *optind_out the first non-option.
 */
typedef int (*each_f)(struct sbatch_opts *o, const struct optdef *d,
                      const char *arg, struct sbatch_error *e);

static int getopt_each(struct sbatch_opts *o, int argc, char **argv,
                       each_f fn, int *optind_out, struct sbatch_error *e)
{
    struct getopt_tables t;
    char **av = xzalloc((size_t)(argc + 1) * sizeof(*av));
    int c, rc = 0;

    getopt_tables_build(&t, o->cmd);
    av[0] = (char *)o->prog;
    for (int i = 1; i < argc; i++)
        av[i] = argv[i];
    optind = 0; /* full reset of GNU getopt */
    opterr = 1;
    while ((c = getopt_long(argc, av, t.shorts, t.longs, NULL)) != -1) {
        const struct optdef *d = row_for(c, o->cmd);

        if (!d) {
            rc = fail(e, 255, NULL, "Try \"%s --help\" for more information",
                      o->prog);
            break;
        }
        if ((rc = fn(o, d, optarg, e)) != 0)
            break;
    }
    *optind_out = optind;
    free(av);
    free(t.longs);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Applying values                                                     */

static int apply(struct sbatch_opts *o, const struct optdef *d,
                 const char *arg, struct sbatch_error *e)
{
    size_t i = row_index(d);
    int rc;

    if ((rc = d->set(o, d, arg, e)) != 0)
        return rc;
    free(o->given[i]);
    o->given[i] = xstrdup(arg ? arg : "set");
    o->is_set[i] = true;
    return 0;
}

/* A false boolean variable (SBATCH_REQUEUE=no) puts the option back. */
static void reset(struct sbatch_opts *o, const struct optdef *d)
{
    size_t i = row_index(d);

    if (d->set == set_flag)
        *FIELD(o, d, bool) = false;
    else if (d->set == set_requeue)
        o->requeue = -1;
    else if (d->set == set_pass) {
        char key[64];

        pass_key(d, key, sizeof(key));
        json_object_del(o->extra, key);
    }
    FREE_NULL(o->given[i]);
    o->is_set[i] = false;
}

/* First pass: act on the early options, keep the rest for later. */
static int first_pass_one(struct sbatch_opts *o, const struct optdef *d,
                          const char *arg, struct sbatch_error *e)
{
    struct sbatch_cli_opt *c;

    if (d->flags & F_EARLY)
        return apply(o, d, arg, e);
    o->cli = realloc(o->cli, (o->cli_count + 1) * sizeof(*o->cli));
    if (!o->cli)
        abort();
    c = &o->cli[o->cli_count++];
    c->def = d;
    c->arg = xstrdup(arg);
    return 0;
}

int sbatch_opts_first_pass(struct sbatch_opts *o, int argc, char **argv,
                           struct sbatch_error *e)
{
    int first, rc;

    o->cur_src = SBATCH_SRC_CLI;
    rc = getopt_each(o, argc, argv, first_pass_one, &first, e);
    if (rc != 0)
        return rc;
    if (first < argc && o->wrap)
        return fail(e, 1, "error",
                    "Script arguments not permitted with --wrap option");
    if (first < argc) {
        o->script_path = xstrdup(argv[first]);
        o->script_argc = argc - first - 1;
        o->script_argv = xzalloc((size_t)(o->script_argc + 1) * sizeof(char *));
        for (int i = 0; i < o->script_argc; i++)
            o->script_argv[i] = xstrdup(argv[first + 1 + i]);
    }
    return SBATCH_SUBMIT;
}

/* ------------------------------------------------------------------ */
/* #SBATCH lines                                                       */

struct strv {
    char **v;
    int n;
};

static void strv_push(struct strv *s, char *str)
{
    s->v = realloc(s->v, (size_t)(s->n + 2) * sizeof(*s->v));
    if (!s->v)
        abort();
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

static void strv_free(struct strv *s)
{
    for (int i = 1; i < s->n; i++) /* v[0] is a literal */
        free(s->v[i]);
    free(s->v);
}

/* One argument of a directive, as Slurm's get_argument() reads it: quotes
 * group, a backslash takes the next character literally, an unquoted '#'
 * ends the line.  *out is NULL at the end of the line.  Returns 0, or -1
 * for an unmatched quote (*quote says which).
 */
static int next_argument(const char **pp, char **out, char *quote)
{
    const char *p = *pp;
    bool esc = false;
    size_t n = 0;
    char *buf;

    *out = NULL;
    *quote = 0;
    while (isspace((unsigned char)*p))
        p++;
    buf = xzalloc(strlen(p) + 1);
    for (; *p && (*quote || !isspace((unsigned char)*p)); p++) {
        if (esc)
            esc = false;
        else if (*p == '\\') {
            esc = true;
            continue;
        } else if (*quote) {
            if (*p == *quote) {
                *quote = 0;
                continue;
            }
        } else if (*p == '"' || *p == '\'') {
            *quote = *p;
            continue;
        } else if (*p == '#')
            break;
        buf[n++] = *p;
    }
    *pp = p;
    if (*quote || n == 0) {
        free(buf);
        return *quote ? -1 : 0;
    }
    *out = buf;
    return 0;
}

/* Split the arguments of one "#SBATCH ..." line into 'args'. */
static int directive_args(const char *line, const char *label, int lineno,
                          struct strv *args, struct sbatch_error *e)
{
    const char *p = line + strlen("#SBATCH");
    char *arg, quote;

    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ':')
            return fail(e, 1, "fatal", "%s: line %d: Unexpected `:` in [%s]",
                        label, lineno, line);
        if (next_argument(&p, &arg, &quote) < 0)
            return fail(e, 1, "fatal", "%s: line %d: Unmatched `%c` in [%s]",
                        label, lineno, quote, line);
        if (!arg)
            return 0;
        strv_push(args, arg);
    }
}

/* Slurm reads directives until the first line that is neither blank nor
 * a comment.
 */
static bool is_command(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return *line && *line != '#';
}

static int script_directives(const char *script, const char *label,
                             struct strv *args, struct sbatch_error *e)
{
    const char *p = script;
    int lineno = 0, rc = 0;

    while (*p && rc == 0) {
        size_t len = strcspn(p, "\n");
        char *line = xasprintf("%.*s", (int)len, p);

        lineno++;
        if (!strncmp(line, "#SBATCH", strlen("#SBATCH")))
            rc = directive_args(line, label, lineno, args, e);
        else if (is_command(line)) {
            free(line);
            break;
        }
        free(line);
        p += len;
        if (*p == '\n')
            p++;
    }
    return rc;
}

/* Options that only make sense on the command line are ignored in the
 * script, as in Slurm.
 */
static int script_one(struct sbatch_opts *o, const struct optdef *d,
                      const char *arg, struct sbatch_error *e)
{
    if (d->flags & F_EARLY)
        return 0;
    return apply(o, d, arg, e);
}

static int apply_script(struct sbatch_opts *o, const char *script,
                        const char *label, struct sbatch_error *e)
{
    struct strv args = {0};
    int first, rc;

    if (!script) /* salloc, srun */
        return 0;
    strv_push(&args, "sbatch");
    rc = script_directives(script, label, &args, e);
    if (rc == 0 && args.n > 1) {
        rc = getopt_each(o, args.n, args.v, script_one, &first, e);
        if (rc == 0 && first < args.n)
            rc = fail(e, 255, "error",
                      "Invalid directive found in batch script: %s",
                      args.v[first]);
    }
    strv_free(&args);
    return rc;
}

/* ------------------------------------------------------------------ */
/* SBATCH_* variables                                                  */

static const char *env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);

    for (; envp && *envp; envp++)
        if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
            return *envp + len + 1;
    return NULL;
}

/* Slurm's rule for flag variables: empty, "yes" or a non-zero number. */
static bool env_true(const char *v)
{
    char *end;
    long n;

    if (!*v || !strcasecmp(v, "yes"))
        return true;
    n = strtol(v, &end, 10);
    return n != 0 && !*end;
}

/* Option 'd' from an input variable's value 'v': a flag is set unless
 * 'v' says no (then reset), an optional argument may be empty. */
static int apply_env_value(struct sbatch_opts *o, const struct optdef *d,
                           const char *v, struct sbatch_error *e)
{
    const char *arg = v;

    if (d->has_arg == no_argument) {
        if (!env_true(v)) {
            reset(o, d);
            return 0;
        }
        arg = NULL;
    } else if (d->has_arg == optional_argument && !*v) {
        arg = NULL;
    }
    return apply(o, d, arg, e);
}

/* srun's input variables (srun(1) INPUT ENVIRONMENT VARIABLES, Slurm
 * 22.05) and the options they stand for; the command line beats them.
 * SLURM_CPUS_PER_TASK is not one: 22.05's srun reads SRUN_CPUS_PER_TASK
 * instead.  SLURM_DISTRIBUTION, SLURM_MPI_TYPE, SLURM_HOSTFILE,
 * SLURM_CONTAINER and SLURM_JOB_ID are read where they are used. */
static const struct {
    const char *var, *opt;
} srun_env[] = {
    {"SLURM_ACCOUNT", "account"},
    {"SLURM_DISABLE_STATUS", "disable-status"},
    {"SLURM_EXACT", "exact"},
    {"SLURM_EXPORT_ENV", "export"},
    {"SLURM_JOB_NUM_NODES", "nodes"},
    {"SLURM_NNODES", "nodes"},
    {"SLURM_KILL_BAD_EXIT", "kill-on-bad-exit"},
    {"SLURM_LABELIO", "label"},
    {"SLURM_NPROCS", "ntasks"},
    {"SLURM_NTASKS", "ntasks"},
    {"SLURM_NTASKS_PER_NODE", "ntasks-per-node"},
    {"SLURM_OVERCOMMIT", "overcommit"},
    {"SLURM_OVERLAP", "overlap"},
    {"SLURM_PARTITION", "partition"},
    {"SLURM_QOS", "qos"},
    {"SLURM_STDERRMODE", "error"},
    {"SLURM_STDINMODE", "input"},
    {"SLURM_STDOUTMODE", "output"},
    {"SLURM_TIMELIMIT", "time"},
    {"SLURM_UNBUFFEREDIO", "unbuffered"},
    {"SLURM_WAIT", "wait"},
    {"SLURM_WORKING_DIR", "chdir"},
    {"SRUN_CPUS_PER_TASK", "cpus-per-task"},
};

/* srun's row named 'name'. */
static const struct optdef *srun_row(const char *name)
{
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (opt_table[i].name && !strcmp(opt_table[i].name, name)
            && row_ok(&opt_table[i], SBATCH_CMD_SRUN))
            return &opt_table[i];
    return NULL;
}

static int apply_srun_env(struct sbatch_opts *o, char *const *envp,
                          struct sbatch_error *e)
{
    for (size_t i = 0; i < sizeof(srun_env) / sizeof(srun_env[0]); i++) {
        const struct optdef *d = srun_row(srun_env[i].opt);
        const char *v = env_get(envp, srun_env[i].var);

        if (d && v && apply_env_value(o, d, v, e) < 0)
            return -1;
    }
    return 0;
}

static int apply_env(struct sbatch_opts *o, char *const *envp,
                     struct sbatch_error *e)
{
    if (o->cmd == SBATCH_CMD_SRUN)
        return apply_srun_env(o, envp, e);
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct optdef *d = &opt_table[i];
        const char *v;
        char name[64];

        if (!d->env || (d->flags & F_EARLY) || !row_ok(d, o->cmd))
            continue;
        /* SBATCH_X -> SALLOC_X */
        snprintf(name, sizeof(name), "%s%s",
                 o->cmd == SBATCH_CMD_SALLOC ? "SALLOC_" : "SBATCH_",
                 d->env + strlen("SBATCH_"));
        if ((v = env_get(envp, name)) && apply_env_value(o, d, v, e) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Second pass and Slurm's checks                                      */

/* --mem and --mem-per-cpu exclude each other.  The one from the stronger
 * source wins; two from the same source are Slurm's errors.
 */
static int check_memory(struct sbatch_opts *o, struct sbatch_error *e)
{
    if (o->mem_per_node_mib < 0 || o->mem_per_cpu_mib < 0)
        return 0;
    if (o->mem_src > o->mem_per_cpu_src) {
        o->mem_per_cpu_mib = -1;
        return 0;
    }
    if (o->mem_per_cpu_src > o->mem_src) {
        o->mem_per_node_mib = -1;
        return 0;
    }
    if (o->mem_src == SBATCH_SRC_CLI)
        return fail(e, 1, "fatal", "--mem, --mem-per-cpu, and --mem-per-gpu "
                                   "are mutually exclusive.");
    if (o->mem_src == SBATCH_SRC_ENV)
        return fail(e, 1, "fatal",
                    "SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and "
                    "SLURM_MEM_PER_NODE are mutually exclusive.");
    return fail(e, 1, "error",
                "--mem and --mem-per-cpu are mutually exclusive.");
}

/* Slurm's _opt_verify() task and node arithmetic. */
static void settle_counts(struct sbatch_opts *o)
{
    bool nodes_set = o->nodes_min > 0;
    bool one_size = !nodes_set || o->nodes_min == o->nodes_max;

    if (o->ntasks_per_node > 0 && !o->ntasks_set && one_size) {
        o->ntasks = (nodes_set ? o->nodes_min : 1) * o->ntasks_per_node;
        o->ntasks_set = true;
    }
    if (nodes_set && one_size && !o->ntasks_set) {
        o->ntasks = o->nodes_min;
    } else if (nodes_set && o->ntasks_set) {
        if (o->ntasks < o->nodes_max)
            o->nodes_max = o->ntasks;
        if (o->ntasks < o->nodes_min) {
            /* srun in an allocation: its SLURM_NNODES yields quietly */
            if (o->cmd != SBATCH_CMD_SRUN || o->nodes_src != SBATCH_SRC_ENV)
                info(o, "Warning: can't run %d processes on %d nodes, "
                        "setting nnodes to %d",
                     o->ntasks, o->nodes_min, o->ntasks);
            o->nodes_min = o->nodes_max = o->ntasks;
        }
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

static int verify(struct sbatch_opts *o, struct sbatch_error *e)
{
    if (o->quiet && o->verbose)
        return fail(e, 1, "error",
                    "don't specify both --verbose (-v) and --quiet (-Q)");
    if (check_memory(o, e) < 0)
        return -1;
    /* Slurm's sbatch, salloc and srun's allocation (a step's too here) */
    if (o->gpus_per_socket && !o->sockets_per_node)
        return fail(e, 1, "error", "--gpus-per-socket option requires "
                                   "--sockets-per-node specification");
    settle_counts(o);
    if (!o->job_name) {
        if (o->wrap)
            o->job_name = xstrdup("wrap");
        else if (o->script_path)
            o->job_name = xstrdup(base_name(o->script_path));
        else
            o->job_name = xstrdup("sbatch");
    }
    return 0;
}

int sbatch_opts_second_pass(struct sbatch_opts *o, const char *script,
                            const char *label, char *const *envp,
                            struct sbatch_error *e)
{
    o->cur_src = SBATCH_SRC_SCRIPT;
    if (apply_script(o, script, label, e) < 0)
        return -1;
    o->cur_src = SBATCH_SRC_ENV;
    if (apply_env(o, envp, e) < 0)
        return -1;
    o->cur_src = SBATCH_SRC_CLI;
    for (size_t i = 0; i < o->cli_count; i++)
        if (apply(o, o->cli[i].def, o->cli[i].arg, e) < 0)
            return -1;
    return verify(o, e);
}

/* ------------------------------------------------------------------ */
/* Create and destroy                                                  */

static const char *const cmd_names[] = {
    [SBATCH_CMD_SBATCH] = "sbatch",
    [SBATCH_CMD_SALLOC] = "salloc",
    [SBATCH_CMD_SRUN] = "srun",
};

struct sbatch_opts *sbatch_opts_create(FILE *msgs)
{
    return sbatch_opts_create_cmd(msgs, SBATCH_CMD_SBATCH);
}

struct sbatch_opts *sbatch_opts_create_cmd(FILE *msgs, enum sbatch_cmd cmd)
{
    struct sbatch_opts *o = xzalloc(sizeof(*o));

    if (!(o->cwd = getcwd(NULL, 0))) {
        free(o);
        return NULL;
    }
    o->cmd = cmd;
    o->prog = cmd_names[cmd];
    o->msgs = msgs;
    o->work_dir = xstrdup(o->cwd);
    o->given = xzalloc(OPT_COUNT * sizeof(*o->given));
    o->is_set = xzalloc(OPT_COUNT * sizeof(*o->is_set));
    o->ntasks = 1;
    o->mem_per_node_mib = -1;
    o->mem_per_cpu_mib = -1;
    o->requeue = -1;
    o->bell = -1;
    o->extra = json_object();
    o->export_file_env = json_object();
    if (!o->extra || !o->export_file_env)
        abort();
    return o;
}

static void free_strings(struct sbatch_opts *o)
{
    char **fields[] = {
        &o->cwd, &o->submit_host, &o->wrap, &o->script_path, &o->job_name,
        &o->partition, &o->comment, &o->work_dir, &o->std_out, &o->std_err,
        &o->std_in, &o->gres, &o->gpus, &o->gpus_per_node,
        &o->gpus_per_socket, &o->export_env,
        &o->mpi, &o->jobid, &o->srun_prolog, &o->srun_epilog,
        &o->clusters,
    };

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        FREE_NULL(*fields[i]);
}

void sbatch_opts_destroy(struct sbatch_opts *o)
{
    int saved_errno = errno;

    if (!o)
        return;
    free_strings(o);
    for (int i = 0; i < o->script_argc; i++)
        free(o->script_argv[i]);
    free(o->script_argv);
    for (size_t i = 0; i < o->cli_count; i++)
        free(o->cli[i].arg);
    free(o->cli);
    for (size_t i = 0; i < OPT_COUNT; i++)
        free(o->given[i]);
    free(o->given);
    free(o->is_set);
    json_decref(o->extra);
    json_decref(o->export_file_env);
    free(o);
    errno = saved_errno;
}

/* ------------------------------------------------------------------ */
/* GRES and GPU requests                                               */

/* A GRES count with Slurm's optional k/m/g suffix; -1 when malformed. */
static long gres_count(const char *s)
{
    char *end;
    long v;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v = saturated_mul(v, 1024L), end++;
    else if (*end == 'm' || *end == 'M')
        v = saturated_mul(v, 1024L * 1024), end++;
    else if (*end == 'g' || *end == 'G')
        v = saturated_mul(v, 1024L * 1024 * 1024), end++;
    return (*end || errno || v > INT_MAX) ? -1 : v;
}

static bool word_ok(const char *s, const char *extra)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && !strchr(extra, *s))
            return false;
    return true;
}

/* GPU specifications seen, typed or not (Slurm refuses a mix). */
enum gres_kind { GRES_UNTYPED = 1, GRES_TYPED = 2 };

/* Counts of a --gres or --gpus list. */
struct gres_counts {
    long gpus;
    long shards; /* gres/shard (Slurm's GPU sharding), untyped */
    long mps;    /* gres/mps (CUDA MPS), untyped */
    char *type;  /* the first GPU type */
    unsigned kinds; /* enum gres_kind seen */
};

/* One entry: "name[:type][:count]" (named) or "[type:]count"; as Slurm, a
 * type alone counts 1.  Adds gpu counts to gc->gpus, shard and mps counts
 * to gc->shards and gc->mps, keeps the first GPU type and ORs enum
 * gres_kind into gc->kinds.  Returns 0 or -1 (a typed shard or mps is
 * refused: they are counted per GPU, whatever its type).
 */
static int gres_entry(char *ent, bool named, struct gres_counts *gc)
{
    char *f[4] = {0};
    int n = 0;
    long count = 1;
    const char *t = NULL;

    for (char *tok = ent, *sep; n < 4; tok = sep + 1) {
        f[n++] = tok;
        if (!(sep = strchr(tok, ':')))
            break;
        *sep = '\0';
    }
    if (n > (named ? 3 : 2) || (named && !word_ok(f[0], "")))
        return -1;
    for (int i = named ? 1 : 0; i < n; i++) {
        if (i == n - 1 && isdigit((unsigned char)f[i][0])) {
            if ((count = gres_count(f[i])) < 0)
                return -1;
        } else if (t || !word_ok(f[i], "-.")) {
            return -1;
        } else {
            t = f[i];
        }
    }
    if (named && (!strcmp(f[0], "shard") || !strcmp(f[0], "mps"))) {
        *(f[0][0] == 's' ? &gc->shards : &gc->mps) += count;
        return t ? -1 : 0;
    }
    if (named && strcmp(f[0], "gpu"))
        return 0;
    gc->gpus += count;
    gc->kinds |= t ? GRES_TYPED : GRES_UNTYPED;
    if (t && !gc->type)
        gc->type = xstrdup(t);
    return 0;
}

/* A comma-separated --gres (named) or --gpus list. */
static int gres_parse(const char *spec, bool named, struct gres_counts *gc)
{
    char *copy = xstrdup(spec), *save = NULL, *tok;
    int rc = 0, entries = 0;

    gc->gpus = gc->shards = gc->mps = 0;
    for (tok = strtok_r(copy, ",", &save); tok && rc == 0;
         tok = strtok_r(NULL, ",", &save), entries++)
        rc = gres_entry(tok, named, gc);
    if (entries == 0 || spec[strlen(spec) - 1] == ',' || strstr(spec, ",,"))
        rc = -1;
    free(copy);
    return rc;
}

long sbatch_gres_gpus(const char *gres, bool *shares)
{
    struct gres_counts gc = {0};
    long n;

    n = gres_parse(gres, true, &gc) < 0 ? -1 : gc.gpus;
    *shares = gc.shards || gc.mps;
    free(gc.type);
    return n;
}

static int gres_fail(const struct sbatch_opts *o, struct sbatch_error *e)
{
    static const char *const what[] = {
        [SBATCH_CMD_SBATCH] = "Batch job submission failed",
        [SBATCH_CMD_SALLOC] = "Job submit/allocate failed",
        [SBATCH_CMD_SRUN] = "Unable to allocate resources",
    };

    return fail(e, 1, "error", "%s: %s", what[o->cmd],
                drv_strerror(EDRV_INVALID_GRES));
}

/* gres, gpus, gpus_per_node, gpus_per_socket, gpu_type, shards_per_node
 * and mps_per_node of the body. */
static int add_gpus(const struct sbatch_opts *o, json_t *body,
                    struct sbatch_error *e)
{
    struct gres_counts gc = {0};
    int rc = -1;

    if (o->gres) {
        if (gres_parse(o->gres, true, &gc) < 0 || (gc.shards && gc.mps))
            goto out; /* a GPU is shared one way (docs/compatibility.md) */
        json_object_set_new(body, "gres", json_string(o->gres));
        if (gc.gpus > 0)
            json_object_set_new(body, "gpus_per_node", json_integer(gc.gpus));
        if (gc.shards > 0)
            json_object_set_new(body, "shards_per_node",
                                json_integer(gc.shards));
        if (gc.mps > 0)
            json_object_set_new(body, "mps_per_node", json_integer(gc.mps));
    }
    if (o->gpus) {
        if (gres_parse(o->gpus, false, &gc) < 0)
            goto out;
        json_object_set_new(body, "gpus", json_integer(gc.gpus));
    }
    if (o->gpus_per_node) {
        if (gres_parse(o->gpus_per_node, false, &gc) < 0)
            goto out;
        json_object_set_new(body, "gpus_per_node", json_integer(gc.gpus));
    }
    if (o->gpus_per_socket) {
        if (gres_parse(o->gpus_per_socket, false, &gc) < 0)
            goto out;
        json_object_set_new(body, "gpus_per_socket", json_integer(gc.gpus));
    }
    if (gc.type)
        json_object_set_new(body, "gpu_type", json_string(gc.type));
    rc = 0;
out:
    free(gc.type);
    if (rc == 0 && gc.kinds == (GRES_TYPED | GRES_UNTYPED))
        return fail(e, 1, "error", "Invalid GRES specification (with and "
                                   "without type identification)");
    return rc < 0 ? gres_fail(o, e) : 0;
}

/* ------------------------------------------------------------------ */
/* The environment to export                                           */

/* Copy "NAME=value" strings from envp into 'env', all of them or those
 * starting with 'prefix'.
 */
static void env_merge(json_t *env, char *const *envp, const char *prefix)
{
    for (; envp && *envp; envp++) {
        const char *eq = strchr(*envp, '=');
        char *name;

        if (!eq || eq == *envp
            || (prefix && strncmp(*envp, prefix, strlen(prefix))))
            continue;
        name = xasprintf("%.*s", (int)(eq - *envp), *envp);
        json_object_set_new(env, name, json_string(eq + 1));
        free(name);
    }
}

/* One --export item: "ALL", "NAME" (copied from envp) or "NAME=value". */
static void export_item(json_t *env, const char *item, char *const *envp)
{
    const char *eq = strchr(item, '=');

    if (!strcasecmp(item, "ALL")) {
        env_merge(env, envp, NULL);
    } else if (!eq) {
        const char *v = env_get(envp, item);

        if (v)
            json_object_set_new(env, item, json_string(v));
    } else if (eq != item) {
        char *name = xasprintf("%.*s", (int)(eq - item), item);

        json_object_set_new(env, name, json_string(eq + 1));
        free(name);
    }
}

/* Split --export at commas outside quotes, as Slurm's find_quote_token(). */
static void export_list(json_t *env, const char *spec, char *const *envp)
{
    char *buf = xzalloc(strlen(spec) + 1);
    char quote = 0;
    size_t n = 0;

    for (const char *p = spec;; p++) {
        if (quote && *p == quote)
            quote = 0;
        else if (!quote && (*p == '"' || *p == '\''))
            quote = *p;
        if (*p == '\0' || (*p == ',' && !quote)) {
            buf[n] = '\0';
            if (n)
                export_item(env, buf, envp);
            n = 0;
            if (!*p)
                break;
            continue;
        }
        buf[n++] = *p;
    }
    free(buf);
}

int sbatch_opts_distribution(const struct sbatch_opts *o, struct taskdist *d)
{
    const char *spec = json_string_value(json_object_get(o->extra,
                                                         "distribution"));

    if (!spec || taskdist_parse(spec, getenv("SLURM_DIST_PLANESIZE"), d,
                                NULL) < 0)
        return 0;
    return 1;
}

/* -m for the job's later sruns: SLURM_DISTRIBUTION in Slurm's words and,
 * for a plane, SLURM_DIST_PLANESIZE (Slurm's set_envs()). */
static void dist_env(const struct sbatch_opts *o, json_t *env)
{
    char text[TASKDIST_TEXT_MAX];
    struct taskdist d;

    if (!sbatch_opts_distribution(o, &d))
        return;
    if (*taskdist_format(&d, 0, text))
        json_object_set_new(env, "SLURM_DISTRIBUTION", json_string(text));
    if (d.node == TASKDIST_PLANE)
        json_object_set_new(env, "SLURM_DIST_PLANESIZE",
                            json_sprintf("%u", d.plane_size));
}

/* Slurm's --export: ALL (the default) sends the whole environment; NONE
 * only SLURM_* variables; a list sends its items plus SLURM_* variables.
 * Then the SLURM_* variables sbatch itself sets for the job (set_envs()).
 */
json_t *sbatch_export_select(const char *spec, char *const *envp)
{
    json_t *env = json_object();

    if (!spec || !strcasecmp(spec, "ALL")) {
        env_merge(env, envp, NULL);
    } else {
        if (strcasecmp(spec, "NONE"))
            export_list(env, spec, envp);
        env_merge(env, envp, "SLURM_");
    }
    return env;
}

static json_t *export_env(const struct sbatch_opts *o, char *const *envp)
{
    json_t *env = sbatch_export_select(o->export_env, envp);

    json_object_update(env, o->export_file_env);
    json_object_set_new(env, "SLURM_JOB_NAME", json_string(o->job_name));
    if (o->cpus_per_task > 0)
        json_object_set_new(env, "SLURM_CPUS_PER_TASK",
                            json_sprintf("%d", o->cpus_per_task));
    if (o->ntasks_set) {
        json_object_set_new(env, "SLURM_NTASKS",
                            json_sprintf("%d", o->ntasks));
        json_object_set_new(env, "SLURM_NPROCS",
                            json_sprintf("%d", o->ntasks));
    }
    if (o->ntasks_per_node > 0)
        json_object_set_new(env, "SLURM_NTASKS_PER_NODE",
                            json_sprintf("%d", o->ntasks_per_node));
    dist_env(o, env);
    return env;
}

/* ------------------------------------------------------------------ */
/* The job description                                                 */

static void set_string(json_t *body, const char *key, const char *value)
{
    if (value)
        json_object_set_new(body, key, json_string(value));
}

static void set_int(json_t *body, const char *key, json_int_t value)
{
    json_object_set_new(body, key, json_integer(value));
}

/* Slurm makes relative -o/-e/-i names absolute under the working
 * directory; the default output name stays relative to it.
 */
static char *full_path(const struct sbatch_opts *o, const char *name)
{
    if (name[0] == '/')
        return xstrdup(name);
    return xasprintf("%s/%s", o->work_dir, name);
}

static void add_io(const struct sbatch_opts *o, json_t *body)
{
    const char *dflt = json_object_get(o->extra, "array") ? "slurm-%A_%a.out"
                                                          : "slurm-%j.out";
    char *out = o->std_out ? full_path(o, o->std_out) : xstrdup(dflt);
    char *err = o->std_err ? full_path(o, o->std_err) : xstrdup(out);
    char *in = full_path(o, o->std_in ? o->std_in : "/dev/null");

    set_string(body, "std_out", out);
    set_string(body, "std_err", err);
    set_string(body, "std_in", in);
    free(out);
    free(err);
    free(in);
}

/* The script and how it was named: "command" is the script's absolute
 * path (Slurm's Command=), absent for --wrap and stdin; "argv" holds the
 * arguments after it.
 */
static void add_script(const struct sbatch_opts *o, json_t *body,
                       const char *script)
{
    json_t *argv = json_array();

    set_string(body, "script", script);
    for (int i = 0; i < o->script_argc; i++)
        json_array_append_new(argv, json_string(o->script_argv[i]));
    json_object_set_new(body, "argv", argv);
    if (o->script_path) {
        const char *p = o->script_path;
        char *cmd;

        while (!strncmp(p, "./", 2))
            p += 2;
        cmd = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", o->cwd, p);
        set_string(body, "command", cmd);
        free(cmd);
    }
}

static void add_resources(const struct sbatch_opts *o, json_t *body)
{
    if (o->nodes_min > 0) {
        set_int(body, "nodes_min", o->nodes_min);
        set_int(body, "nodes_max", o->nodes_max);
    } else if (o->nodes_min < 0) {
        set_int(body, "nodes_min", 0);
        set_int(body, "nodes_max", 0);
    }
    set_int(body, "ntasks", o->ntasks);
    json_object_set_new(body, "ntasks_set", json_boolean(o->ntasks_set));
    if (o->cpus_per_task > 0)
        set_int(body, "cpus_per_task", o->cpus_per_task);
    if (json_is_string(json_object_get(o->extra, "tmp"))) {
        uint64_t mib = 0;

        sizefmt_parse_mib(json_string_value(json_object_get(o->extra, "tmp")),
                          &mib, NULL); /* checked as it was set */
        json_object_del(body, "tmp");
        if (mib)
            json_object_set_new(body, "min_tmp_mib", json_integer((json_int_t)mib));
    }
    if (json_is_string(json_object_get(o->extra, "mincpus")))
        set_int(body, "min_cpus_per_node",
                atoi(json_string_value(json_object_get(o->extra,
                                                       "mincpus"))));
    if (o->ntasks_per_node > 0)
        set_int(body, "ntasks_per_node", o->ntasks_per_node);
    if (o->sockets_per_node > 0)
        set_int(body, "sockets_per_node", o->sockets_per_node);
    if (o->cores_per_socket > 0)
        set_int(body, "cores_per_socket", o->cores_per_socket);
    if (o->threads_per_core > 0)
        set_int(body, "threads_per_core", o->threads_per_core);
    if (o->mem_per_node_mib >= 0)
        set_int(body, "mem_per_node_mib", o->mem_per_node_mib);
    if (o->mem_per_cpu_mib >= 0)
        set_int(body, "mem_per_cpu_mib", o->mem_per_cpu_mib);
    if (o->time_set)
        set_int(body, "time_limit_s", o->time_limit_s);
}

static void add_flags(const struct sbatch_opts *o, json_t *body)
{
    json_object_set_new(body, "exclusive", json_boolean(o->exclusive));
    json_object_set_new(body, "hold", json_boolean(o->hold));
    if (o->requeue >= 0)
        json_object_set_new(body, "requeue", json_boolean(o->requeue));
    if (o->nice_set)
        set_int(body, "nice", o->nice);
}

json_t *sbatch_opts_job_desc(const struct sbatch_opts *o, const char *script,
                             char *const *envp, struct sbatch_error *e)
{
    json_t *body = json_object();

    json_object_update(body, o->extra);
    set_string(body, "name", o->job_name);
    set_string(body, "partition", o->partition);
    set_string(body, "comment", o->comment);
    set_string(body, "work_dir", o->work_dir);
    set_string(body, "submit_host", o->submit_host);
    if (o->cmd != SBATCH_CMD_SBATCH) {
        /* salloc/srun: an allocation only; the command runs here. */
        json_object_set_new(body, "interactive", json_true());
        set_string(body, "command", o->script_path);
    } else {
        add_script(o, body, script);
        add_io(o, body);
    }
    add_resources(o, body);
    add_flags(o, body);
    if (add_gpus(o, body, e) < 0) {
        json_decref(body);
        return NULL;
    }
    if (o->cmd != SBATCH_CMD_SBATCH)
        return body;
    json_object_set_new(body, "env", export_env(o, envp));
    /* Slurm: --export=NONE implies --get-user-env on the batch host. */
    if (o->export_env && !strcasecmp(o->export_env, "NONE")
        && !json_object_get(body, "get_user_env"))
        json_object_set_new(body, "get_user_env", json_true());
    return body;
}

/* ------------------------------------------------------------------ */
/* Scripts                                                             */

char *sbatch_script_wrap(const char *cmd)
{
    return xasprintf("#!/bin/sh\n# This script was created by sbatch "
                     "--wrap.\n\n%s\n", cmd);
}

static bool only_whitespace(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isspace((unsigned char)buf[i]))
            return false;
    return true;
}

int sbatch_script_check(const char *buf, size_t len, struct sbatch_error *e)
{
    if (len == 0)
        return fail(e, 1, "error", "Batch script is empty!");
    if (only_whitespace(buf, len))
        return fail(e, 1, "error", "Batch script contains only whitespace!");
    if (len < 2 || buf[0] != '#' || buf[1] != '!')
        return fail(e, 1, "error",
                    "This does not look like a batch script.  The first\n"
                    "line must start with #! followed by the path to an "
                    "interpreter.\nFor instance: #!/bin/sh");
    if (memchr(buf, '\0', len))
        return fail(e, 1, "error",
                    "The Slurm controller does not allow scripts that\n"
                    "contain a NULL character '\\0'.");
    for (size_t i = 1; i < len; i++)
        if (buf[i - 1] == '\r' && buf[i] == '\n')
            return fail(e, 1, "error",
                        "Batch script contains DOS line breaks (\\r\\n)\n"
                        "instead of expected UNIX line breaks (\\n).");
    return 0;
}

/* ------------------------------------------------------------------ */
/* Help and -v                                                         */

static void help_row(FILE *f, const struct optdef *d)
{
    char left[96];
    const char *p = d->help;
    size_t n = strcspn(p, "\n");

    if (d->help_left)
        snprintf(left, sizeof(left), "%s", d->help_left);
    else if (d->short_opt)
        snprintf(left, sizeof(left), "-%c, --%s%s", d->short_opt, d->name,
                 d->help_arg);
    else
        snprintf(left, sizeof(left), "    --%s%s", d->name, d->help_arg);
    if (n == 0)
        fprintf(f, "  %s\n", left);
    else
        fprintf(f, "  %-27s %.*s\n", left, (int)n, p);
    for (p += n; *p == '\n'; p += n) {
        p++;
        n = strcspn(p, "\n");
        fprintf(f, "%30s%.*s\n", "", (int)n, p);
    }
}

void sbatch_opts_print_help(FILE *f)
{
    sbatch_opts_print_help_cmd(f, SBATCH_CMD_SBATCH);
}

/* Drover's own rows (pyxis's container options) this command takes. */
static void help_extensions(FILE *f, enum sbatch_cmd cmd)
{
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (opt_table[i].name
            && !strncmp(opt_table[i].name, "container-", 10)
            && row_ok(&opt_table[i], cmd))
            help_row(f, &opt_table[i]);
}

/* salloc and srun: Slurm's text, Drover's rows after "--container". */
static void print_slurm_text(FILE *f, const char *text, enum sbatch_cmd cmd)
{
    const char *mark = strstr(text, "\n      --container ");
    const char *eol = mark ? strchr(mark + 1, '\n') : NULL;

    if (!eol) {
        fputs(text, f);
        return;
    }
    fwrite(text, 1, (size_t)(eol + 1 - text), f);
    help_extensions(f, cmd);
    fputs(eol + 1, f);
}

void sbatch_opts_print_help_cmd(FILE *f, enum sbatch_cmd cmd)
{
    static const char *const usage[] = {
        [SBATCH_CMD_SBATCH] = "Usage: sbatch [OPTIONS(0)...] [ : "
                              "[OPTIONS(N)...]] script(0) [args(0)...]\n",
        [SBATCH_CMD_SALLOC] = "Usage: salloc [OPTIONS(0)...] [ : "
                              "[OPTIONS(N)...]] [command(0) [args(0)...]]\n",
        [SBATCH_CMD_SRUN] = "Usage: srun [OPTIONS(0)... [executable(0) "
                            "[args(0)...]]] [ : [OPTIONS(N)...]] "
                            "executable(N) [args(N)...]\n",
    };

    if (cmd != SBATCH_CMD_SBATCH) {
        print_slurm_text(f, cmd == SBATCH_CMD_SALLOC ? salloc_help_text
                                                     : srun_help_text, cmd);
        return;
    }
    fputs(usage[cmd], f);
    for (int sec = SEC_PARALLEL; sec < SEC_COUNT; sec++) {
        fputc('\n', f);
        if (section_title[sec])
            fprintf(f, "%s\n", section_title[sec]);
        for (size_t i = 0; i < OPT_COUNT; i++)
            if (opt_table[i].sec == (enum section)sec
                && row_ok(&opt_table[i], cmd))
                help_row(f, &opt_table[i]);
    }
    fputc('\n', f);
}

void sbatch_opts_print_usage(FILE *f)
{
    fputs(usage_text, f);
}

static int row_name_cmp(const void *a, const void *b)
{
    const struct optdef *x = *(const struct optdef *const *)a;
    const struct optdef *y = *(const struct optdef *const *)b;

    return strcmp(x->name, y->name);
}

/* As Slurm's slurm_print_set_options(): the options set, by name (its
 * table is in name order), counts (-v, -Q) as the number given. */
void sbatch_opts_print_set(const struct sbatch_opts *o, FILE *f)
{
    const char *rule = "-------------------- --------------------";
    const struct optdef *rows[OPT_COUNT];
    const char *p = o->prog;
    size_t n = 0;

    for (size_t i = 0; i < OPT_COUNT; i++)
        if (o->is_set[i] && opt_table[i].set != set_action)
            rows[n++] = &opt_table[i];
    qsort(rows, n, sizeof(rows[0]), row_name_cmp);
    fprintf(f, "%s: defined options\n%s: %s\n", p, p, rule);
    for (size_t k = 0; k < n; k++) {
        const struct optdef *d = rows[k];

        if (d->set == set_count)
            fprintf(f, "%s: %-20s: %d\n", p, d->name, *CFIELD(o, d, int));
        else
            fprintf(f, "%s: %-20s: %s\n", p, d->name,
                    o->given[row_index(d)]);
    }
    fprintf(f, "%s: %s\n%s: end of defined options\n", p, rule, p);
}
