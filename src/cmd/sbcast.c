/* SPDX-License-Identifier: Apache-2.0
 *
 * sbcast.c - copy a file to every node of a running job (Slurm's sbcast)
 *
 * The job (-j, else SLURM_JOB_ID) comes from the controller (job_info:
 * RUNNING, its nodes); each node's address is slurm.conf's.  The file goes
 * in blocks (-s, at most 8 MiB, default the file's size or 8 MiB) to each
 * node's droverd as file_bcast requests under the user's own MUNGE
 * credential; the node checks the job with the controller and writes the
 * block as the job's user (src/noded/bcast.h).  A node's refusal is
 * printed as Slurm's "REQUEST_FILE_BCAST(node): <error>" and its errno is
 * the exit status (EEXIST 17: the file is there and -f was not given),
 * as Slurm 22.05 does (golden sbcast-salloc-N2).
 *
 * -C (lz4, or BcastParameters=Compression=lz4) compresses each block that
 * gets smaller.  Differences (docs/compatibility.md): blocks go to one
 * node at a time (a fanout of 1, which -F allows); --send-libs is
 * refused.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "common/base64.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

#include <lz4.h>

#define PROG "sbcast"
#define BLOCK_MAX (8u * 1024 * 1024) /* Slurm's largest block, bytes */
#define FANOUT_MAX 8 /* Slurm's MAX_THREADS for -F; the value is checked,
                      * and any is kept: blocks go to one node at a time */

enum { OPT_EXCLUDE = CMD_OPT_LONG, OPT_SEND_LIBS, OPT_HELP, OPT_USAGE };

static const struct cmd_opt opts[] = {
    {"compress", 'C', optional_argument,
     "  -C, --compress[=lib]  compress the file being transmitted\n"},
    {"exclude", OPT_EXCLUDE, required_argument,
     "  --exclude=<path_list> shared object paths to be excluded\n"},
    {"force", 'f', no_argument,
     "  -f, --force           replace destination file as required\n"},
    {"fanout", 'F', required_argument,
     "  -F, --fanout=num      specify message fanout\n"},
    {"jobid", 'j', required_argument,
     "  -j, --jobid=#[+#][.#] specify job ID with optional hetjob offset "
     "and/or step ID\n"},
    {"preserve", 'p', no_argument,
     "  -p, --preserve        preserve modes and times of source file\n"},
    {"send-libs", OPT_SEND_LIBS, optional_argument,
     "  --send-libs[=yes|no]  autodetect and broadcast executable's shared "
     "objects\n"},
    {"size", 's', required_argument,
     "  -s, --size=num        block size in bytes (rounded off)\n"},
    {"timeout", 't', required_argument,
     "  -t, --timeout=secs    specify message timeout (seconds)\n"},
    {"verbose", 'v', no_argument,
     "  -v, --verbose         provide detailed event logging\n"},
    {"version", 'V', no_argument,
     "  -V, --version         print version information and exit\n"
     "\nHelp options:\n"},
    {"help", OPT_HELP, no_argument,
     "  --help                show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage               display brief usage message\n"},
    CMD_OPT_END,
};

static const char usage_text[] =
    "Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n";

struct bcast_opts {
    const char *source, *dest_arg;
    char *dest;           /* absolute */
    uint32_t job_id;
    uint32_t block_size;  /* bytes; 0: the file's size, at most BLOCK_MAX */
    unsigned timeout_s;   /* 0: MessageTimeout */
    bool force, preserve;
    bool compress;        /* -C lz4 (or BcastParameters=Compression=lz4) */
    bool send_libs;       /* --send-libs (refused) */
    int verbose;
};

/* "sbcast: error: ..." and exit 1. */
__attribute__((format(printf, 1, 2), noreturn)) static void
die(const char *fmt, ...)
{
    va_list ap;

    fputs("sbcast: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* "-s": bytes with an optional k or m suffix (Slurm's). */
static uint32_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (end == s)
        die("Invalid block size %s", s);
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024, end++;
    if (*end || v == 0)
        die("Invalid block size %s", s);
    return v > BLOCK_MAX ? BLOCK_MAX : (uint32_t)v;
}

static unsigned parse_uint(const char *what, const char *s, unsigned max)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);

    if (end == s || *end || v > max) {
        fprintf(stderr, "sbcast: error: Invalid %s %s\n", what, s);
        exit(1);
    }
    return (unsigned)v;
}

/* "-j N[.S]" or SLURM_JOB_ID; hetjob offsets are refused. */
static uint32_t parse_job(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);

    if (end == s || (*end && *end != '.') || v == 0 || v > UINT32_MAX)
        die("Invalid job ID %s", s);
    return (uint32_t)v;
}

/* -C [lz4|none]: lz4 when no library is named, as Slurm 22.05. */
static bool compress_opt(const char *lib)
{
    if (!lib || !*lib || !strcasecmp(lib, "lz4"))
        return true;
    if (!strcasecmp(lib, "none"))
        return false;
    die("Invalid compression library %s (lz4 or none)", lib);
}

static bool send_libs_opt(const char *v)
{
    if (!v || !strcasecmp(v, "yes"))
        return true;
    if (!strcasecmp(v, "no"))
        return false;
    die("Invalid --send-libs value %s (yes or no)", v);
}

/* SBCAST_* environment variables, before the options (as Slurm). */
static void env_opts(struct bcast_opts *o)
{
    const char *v;

    o->compress = cmd_conf(PROG)->bcast.compress;
    o->send_libs = cmd_conf(PROG)->bcast.send_libs;
    if ((v = getenv("SBCAST_COMPRESS")))
        o->compress = compress_opt(v);
    if ((v = getenv("SBCAST_SEND_LIBS")))
        o->send_libs = send_libs_opt(v);
    if ((v = getenv("SBCAST_FANOUT"))) /* checked; see FANOUT_MAX */
        parse_uint("fanout", v, FANOUT_MAX);
    if (getenv("SBCAST_FORCE"))
        o->force = true;
    if (getenv("SBCAST_PRESERVE"))
        o->preserve = true;
    if ((v = getenv("SBCAST_SIZE")))
        o->block_size = parse_size(v);
    if ((v = getenv("SBCAST_TIMEOUT")))
        o->timeout_s = parse_uint("timeout", v, 65535);
    if ((v = getenv("SLURM_JOB_ID")) || (v = getenv("SLURM_JOBID")))
        o->job_id = parse_job(v);
}

static void parse_args(int argc, char **argv, struct bcast_opts *o)
{
    int c;

    env_opts(o);
    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'C': o->compress = compress_opt(optarg); break;
        case OPT_EXCLUDE: break; /* only with --send-libs, refused */
        case 'f': o->force = true; break;
        case 'F': parse_uint("fanout", optarg, FANOUT_MAX); break;
        case 'j': o->job_id = parse_job(optarg); break;
        case 'p': o->preserve = true; break;
        case OPT_SEND_LIBS: o->send_libs = send_libs_opt(optarg); break;
        case 's': o->block_size = parse_size(optarg); break;
        case 't': o->timeout_s = parse_uint("timeout", optarg, 65535); break;
        case 'v': o->verbose++; break;
        case 'V': cmd_print_version(); exit(0);
        case OPT_HELP:
            cmd_print_help(stdout, "Usage: sbcast [OPTIONS] SOURCE DEST\n",
                           opts, NULL);
            exit(0);
        case OPT_USAGE: fputs(usage_text, stdout); exit(0);
        default: fputs(usage_text, stderr); exit(1);
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "sbcast: error: Need two file names, have %d "
                        "names\n", argc - optind);
        exit(1);
    }
    if (o->send_libs)
        die("--send-libs (or BcastParameters=send_libs) is not supported "
            "by Drover: use --send-libs=no");
    o->source = argv[optind];
    o->dest_arg = argv[optind + 1];
    if (!o->job_id)
        die("%s", "Need a job id to run this command.  Run from within a "
                  "Slurm job or use the --jobid option.");
}

/* DEST made absolute: relative to BcastParameters=DestDir, else to the
 * current directory (Slurm's). */
static char *absolute(const char *dest)
{
    const char *dir = cmd_conf(PROG)->bcast.dest_dir;
    char cwd[PATH_MAX];

    if (dest[0] == '/')
        return xstrdup(dest);
    if (dir)
        return xasprintf("%s/%s", dir, dest);
    if (!getcwd(cwd, sizeof(cwd)))
        die("getcwd: %s", strerror(errno));
    return xasprintf("%s/%s", cwd, dest);
}

/* The job's nodes (a new hostlist) once it runs, else exits. */
static hostlist_t *job_nodes(const struct bcast_opts *o)
{
    json_t *resp = NULL, *job;
    drv_error_t error = {0};
    const char *state, *nodes;
    hostlist_t *hl;

    if (cmd_rpc(PROG, "job_info",
                json_pack("{s:[I] s:[ss]}", "job_ids",
                          (json_int_t)o->job_id, "fields", "job_state",
                          "nodes"),
                &resp, &error)
        < 0) {
        fprintf(stderr, "sbcast: error: Slurm job ID %u lookup error: %s\n",
                o->job_id, error.text);
        exit(1);
    }
    job = json_array_get(json_object_get(resp, "jobs"), 0);
    state = json_string_value(json_object_get(job, "job_state"));
    nodes = json_string_value(json_object_get(job, "nodes"));
    if (!job || !state || strcmp(state, "RUNNING") || !nodes || !*nodes) {
        fprintf(stderr, "sbcast: error: Slurm job ID %u lookup error: %s\n",
                o->job_id,
                job ? "Job is not running" : "Invalid job id specified");
        exit(1);
    }
    if (!(hl = hostlist_decode(nodes, &error)))
        die("job's node list: %s", error.text);
    if (o->verbose)
        fprintf(stderr, "sbcast: jobid      = %u\nsbcast: node_cnt   = %zu\n"
                        "sbcast: node_list  = %s\n",
                o->job_id, hostlist_count(hl), nodes);
    json_decref(resp);
    return hl;
}

/* The job's nodes (main()), freed before a refusal's exit. */
static hostlist_t *job_hosts;

/* One block to one node; on a refusal prints Slurm's line and exits with
 * the node's errno. */
static void send_block(const struct bcast_opts *o, const char *node,
                       json_t *body)
{
    const struct conf_node *cn = conf_node_find(cmd_conf_nodes(PROG), node);
    drv_error_t error = {0};

    if (!cn) {
        fprintf(stderr, "sbcast: error: REQUEST_FILE_BCAST(%s): node not in "
                        "slurm.conf\n", node);
        exit(1);
    }
    if (cmd_rpc_to(PROG, cn->addr, cn->port, "file_bcast", json_incref(body),
                   NULL, &error)
        < 0) {
        int e = errno;
        fprintf(stderr, "sbcast: error: REQUEST_FILE_BCAST(%s): %s\n", node,
                error.text);
        hostlist_destroy(job_hosts); /* what the caller holds: exiting */
        json_decref(body);
        exit(e > 0 && (e & 0xff) ? e & 0xff : 1); /* as exit(errno) */
    }
}

/* The block into 'body': "data" in base64, lz4-compressed ("compress",
 * "size": the raw bytes) when asked and smaller. */
static void put_data(json_t *body, const unsigned char *buf, size_t n,
                     bool compress)
{
    char *data = NULL;

    if (compress && n > 0) {
        int bound = LZ4_compressBound((int)n);
        char *z = xzalloc((size_t)bound);
        int zn = LZ4_compress_default((const char *)buf, z, (int)n, bound);
        if (zn > 0 && (size_t)zn < n) {
            data = base64_encode(z, (size_t)zn);
            json_object_set_new(body, "compress", json_string("lz4"));
            json_object_set_new(body, "size", json_integer((json_int_t)n));
        }
        free(z);
    }
    if (!data)
        data = base64_encode(buf, n);
    json_object_set_new(body, "data", json_string(data));
    free(data);
}

/* The file, block by block, to every node. */
static void broadcast(const struct bcast_opts *o, int fd,
                      const struct stat *st, const hostlist_t *nodes)
{
    uint32_t bs = o->block_size ? o->block_size : BLOCK_MAX;
    unsigned char *buf;
    off_t off = 0;

    if (st->st_size > 0 && (uint64_t)st->st_size < bs)
        bs = (uint32_t)st->st_size;
    buf = xzalloc(bs ? bs : 1);
    do {
        ssize_t n = pread(fd, buf, bs, off);
        json_t *body;

        if (n < 0)
            die("read: %s", strerror(errno));
        body = json_pack("{s:I s:s s:I s:b s:b}", "job_id",
                         (json_int_t)o->job_id, "path", o->dest, "offset",
                         (json_int_t)off, "last", off + n >= st->st_size,
                         "force", o->force);
        put_data(body, buf, (size_t)n, o->compress);
        if (o->preserve)
            json_object_update_new(
                body, json_pack("{s:I s:I s:I}", "mode",
                                (json_int_t)(st->st_mode & 07777), "atime",
                                (json_int_t)st->st_atime, "mtime",
                                (json_int_t)st->st_mtime));
        for (size_t i = 0; i < hostlist_count(nodes); i++)
            send_block(o, hostlist_nth(nodes, i), body);
        json_decref(body);
        off += n;
        if (n == 0)
            break;
    } while (off < st->st_size);
    free(buf);
}

int main(int argc, char **argv)
{
    struct bcast_opts o = {0};
    struct stat st;
    int fd;

    parse_args(argc, argv, &o);
    if (o.timeout_s)
        cmd_rpc_set_timeout(o.timeout_s);
    if ((fd = open(o.source, O_RDONLY | O_CLOEXEC)) < 0
        || fstat(fd, &st) < 0) {
        fprintf(stderr, "sbcast: error: Can't open `%s`: %s\n", o.source,
                strerror(errno));
        exit(1);
    }
    if (!S_ISREG(st.st_mode))
        die("%s: not a regular file", o.source);
    o.dest = absolute(o.dest_arg);
    if (o.verbose)
        fprintf(stderr, "sbcast: source     = %s\nsbcast: dest       = %s\n"
                        "sbcast: size       = %lld\n"
                        "sbcast: compress   = %s\n",
                o.source, o.dest, (long long)st.st_size,
                o.compress ? "lz4" : "none");
    job_hosts = job_nodes(&o);
    broadcast(&o, fd, &st, job_hosts);
    hostlist_destroy(job_hosts);
    close(fd);
    free(o.dest);
    return 0;
}
