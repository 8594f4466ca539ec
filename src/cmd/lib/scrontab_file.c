/* SPDX-License-Identifier: Apache-2.0
 *
 * scrontab_file.c - a crontab file into crontab_set's entries
 * (scrontab_file.h)
 */
#include "cmd/lib/scrontab_file.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/lib/sbatch_opt.h"
#include "cmd/lib/sbatch_req.h"
#include "common/cron.h"
#include "common/xalloc.h"

#define HEADER "#!/bin/sh\n# This job was submitted through scrontab\n"

/* What the lines before an entry gathered. */
struct pending {
    int line_start;    /* first #SCRON line, 0: none */
    char *scron;       /* the #SCRON lines as written */
    char *directives;  /* the same as #SBATCH lines, for sbatch's parser */
};

static char *dup_n(const char *s, size_t n)
{
    char *d = xzalloc(n + 1);

    memcpy(d, s, n);
    return d;
}

static void append(char **s, const char *text, size_t n)
{
    size_t len = *s ? strlen(*s) : 0;

    *s = xrealloc(*s, len + n + 1);
    memcpy(*s + len, text, n);
    (*s)[len + n] = '\0';
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* "NAME=value" (cron's variable lines): the name's length, else 0. */
static size_t var_name_len(const char *p)
{
    size_t n = 0;

    if (!isalpha((unsigned char)*p) && *p != '_')
        return 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    return p[skip_blanks(p + n) - p] == '=' ? n : 0;
}

/* 'cmd' with every "$NAME" of 'vars' ({"NAME":"value"}) replaced. */
static char *expand(const char *cmd, json_t *vars)
{
    char *out = NULL;
    const char *p = cmd;

    append(&out, "", 0);
    while (*p) {
        const char *key, *hit = NULL;
        json_t *v, *best = NULL;
        size_t best_len = 0;

        if (*p == '$')
            json_object_foreach(vars, key, v) {
                size_t n = strlen(key);
                if (!strncmp(p + 1, key, n) && n > best_len)
                    best = v, best_len = n, hit = key;
            }
        if (hit) {
            append(&out, json_string_value(best),
                   strlen(json_string_value(best)));
            p += 1 + best_len;
        } else {
            append(&out, p++, 1);
        }
    }
    return out;
}

/* The command's first word: the job's default name, as Slurm's. */
static char *first_word(const char *cmd)
{
    size_t n = strcspn(cmd, " \t");

    return dup_n(cmd, n);
}

/* sbatch's options of 'pd' into a job description for 'script'. */
static json_t *entry_desc(const struct pending *pd, const char *script,
                          const char *cmd, const char *home, FILE *err)
{
    static char *const no_env[] = {NULL};
    static char *const job_env[] = {"SLURM_GET_USER_ENV=1", NULL};
    char *argv[] = {"scrontab", NULL};
    struct sbatch_error e = {0};
    struct sbatch_opts *o = sbatch_opts_create(NULL);
    json_t *desc = NULL;
    char *directives = NULL;

    if (!o)
        return NULL;
    o->prog = "scrontab"; /* sbatch's messages name scrontab */
    append(&directives, "#!/bin/sh\n", 10);
    if (pd->directives)
        append(&directives, pd->directives, strlen(pd->directives));
    free(o->job_name);
    o->job_name = first_word(cmd);
    free(o->work_dir);
    o->work_dir = xstrdup(home);
    if (sbatch_opts_first_pass(o, 1, argv, &e) != SBATCH_SUBMIT
        || sbatch_opts_second_pass(o, directives, "crontab", no_env, &e) < 0
        || !(desc = sbatch_opts_job_desc(o, script, job_env, &e))
        || sbatch_req_finish(desc, time(NULL), &e) < 0) {
        json_decref(desc);
        desc = NULL;
        sbatch_error_print_as(&e, "scrontab", err);
    } else {
        json_object_set_new(desc, "get_user_env", json_true());
    }
    free(directives);
    sbatch_opts_destroy(o);
    return desc;
}

/* Entry line 'line' (number 'no') with what came before it, into
 * 'entries'.  Returns 0, or -1 with the reason on 'err'. */
static int add_entry(json_t *entries, const char *line, int no,
                     struct pending *pd, json_t *vars, const char *home,
                     FILE *err)
{
    struct cron_spec spec;
    size_t spec_len, cmd_off;
    drv_error_t error = {{0}};
    char *spec_text, *cmd, *script = NULL;
    json_t *desc;
    const char *start = skip_blanks(line);

    if (cron_parse(line, &spec, &spec_len, &cmd_off, &error) < 0) {
        fprintf(err, "scrontab: error: line %d: %s\n", no, error.text);
        return -1;
    }
    spec_text = dup_n(start, spec_len - (size_t)(start - line));
    cmd = expand(line + cmd_off, vars);
    append(&script, HEADER, strlen(HEADER));
    if (pd->scron)
        append(&script, pd->scron, strlen(pd->scron));
    append(&script, "# crontab time request was: '", 30);
    append(&script, spec_text, strlen(spec_text));
    append(&script, "'\n", 2);
    append(&script, cmd, strlen(cmd));
    append(&script, "\n", 1);
    desc = entry_desc(pd, script, cmd, home, err);
    if (desc)
        json_array_append_new(entries, json_pack(
            "{s:i s:i s:s s:o}", "line_start",
            pd->line_start ? pd->line_start : no, "line_end", no,
            "cron_spec", spec_text, "job", desc));
    else
        fprintf(err, "scrontab: error: line %d: invalid #SCRON options\n",
                pd->line_start ? pd->line_start : no);
    free(spec_text);
    free(cmd);
    free(script);
    return desc ? 0 : -1;
}

static void pending_clear(struct pending *pd)
{
    free(pd->scron);
    free(pd->directives);
    memset(pd, 0, sizeof(*pd));
}

/* One line (without its newline) of the file, number 'no'. */
static int read_line(json_t *entries, char *line, int no, struct pending *pd,
                     json_t *vars, const char *home, FILE *err)
{
    const char *p = skip_blanks(line);
    size_t n;
    int rc;

    if (!*p)
        return 0;
    if (!strncmp(p, "#SCRON", 6)) {
        if (!pd->line_start)
            pd->line_start = no;
        append(&pd->scron, line, strlen(line));
        append(&pd->scron, "\n", 1);
        append(&pd->directives, "#SBATCH", 7);
        append(&pd->directives, p + 6, strlen(p + 6));
        append(&pd->directives, "\n", 1);
        return 0;
    }
    if (*p == '#')
        return 0;
    if ((n = var_name_len(p))) {
        char *name = dup_n(p, n);
        const char *v = skip_blanks(skip_blanks(p + n) + 1);
        json_object_set_new(vars, name, json_string(v));
        free(name);
        return 0;
    }
    rc = add_entry(entries, line, no, pd, vars, home, err);
    pending_clear(pd);
    return rc;
}

json_t *scrontab_file_entries(const char *text, const char *home,
                              int *bad_line, FILE *err)
{
    json_t *entries = json_array(), *vars = json_object();
    struct pending pd = {0};
    char *copy = xstrdup(text), *line = copy;
    int no = 1;

    *bad_line = 0;
    while (line && *line) {
        char *nl = strchr(line, '\n');

        if (nl)
            *nl = '\0';
        if (read_line(entries, line, no, &pd, vars, home, err) < 0) {
            *bad_line = no;
            break;
        }
        line = nl ? nl + 1 : NULL;
        no++;
    }
    pending_clear(&pd);
    free(copy);
    json_decref(vars);
    if (*bad_line) {
        json_decref(entries);
        return NULL;
    }
    return entries;
}

char *scrontab_file_mark(const char *text, json_t *lines,
                         const char *prefix)
{
    char *out = NULL;
    const char *line = text;
    int no = 1;

    append(&out, "", 0);
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line), i;
        json_t *v;

        json_array_foreach(lines, i, v)
            if (json_integer_value(v) == no) {
                append(&out, prefix, strlen(prefix));
                break;
            }
        append(&out, line, n);
        line += n;
        no++;
    }
    return out;
}
