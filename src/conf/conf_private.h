/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_private.h - declarations shared by the files of src/conf
 *
 * conf_lexer.c turns text into lines of Key=Value pairs; conf.c owns the
 * global keyword table and dispatches NodeName (conf_node.c), PartitionName
 * (conf_part.c) lines; conf_gres.c reads gres.conf and fills the devices.
 */
#ifndef DROVER_CONF_CONF_PRIVATE_H
#define DROVER_CONF_CONF_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "conf/conf.h"

/* One Key=Value pair; both strings are borrowed for the callback only.
 * A quoted value has its quotes removed; "Key=" gives an empty value.
 */
struct conf_pair {
    const char *key;
    const char *value;
};

/* One logical line (continuations joined, comment removed). */
struct conf_line {
    const char *file;              /* path for messages (borrowed) */
    int line;                      /* first physical line, 1-based */
    const struct conf_pair *pairs; /* count >= 1; pairs[0] names the kind */
    size_t count;
};

/* Called for each non-empty line.  Returns 0, or -1 with errno and 'error'
 * set, which stops the lexer.
 */
typedef int (*conf_line_f)(const struct conf_line *line, void *arg,
                           drv_error_t *error);

/* Lex 'text', read from 'file' (used in messages), calling 'cb' for each
 * line.  "Include PATH" lines are followed (PATH relative to 'confdir', glob
 * patterns allowed).  Returns 0, or -1 with errno (EINVAL syntax, ENOENT and
 * friends for an Include that cannot be read, ENOMEM) and 'error' set.
 */
int conf__lex(const char *file, const char *text, const char *confdir,
              conf_line_f cb, void *arg, drv_error_t *error);

/* A set() answer beginning with this byte takes the value and says it has
 * no effect in Drover; the text after it is why (conf__keytab_line()). */
#define CONF_NO_EFFECT "\001"

/* A table of keywords (rows of any struct whose first member is the
 * keyword's name, a const char *) and how a value is set: 'set' returns
 * NULL, "" for ENOMEM, CONF_NO_EFFECT "why" for a keyword accepted and not
 * used, or why the value is refused (conf_keytab.c).  'notices' is where
 * the "no effect" lines go: the conf's own list (conf__notice_add()). */
struct conf_keytab {
    const void *rows;
    size_t count;
    size_t row_size;
    const char *(*set)(void *conf, const void *row, const char *value);
    /* The conf's list of notices and, in *count, its length's address. */
    char ***(*notices)(void *conf, size_t **count);
};

/* The row named 'name' (case-insensitive), or NULL. */
const void *conf__key_find(const struct conf_keytab *t, const char *name);

/* Apply every pair of line 'l' to 'conf' through 't': an unknown keyword
 * is logged ("file:line: unknown keyword 'X' ignored") and skipped; a
 * keyword with no effect given a value adds "file:line: Key=value has no
 * effect in Drover: why" to t->notices(conf); a refused value fails with
 * EINVAL and "file:line: Key=value: why".  Returns 0 or -1 with 'error'
 * set (ENOMEM too). */
int conf__keytab_line(const struct conf_line *l, const struct conf_keytab *t,
                      void *conf, drv_error_t *error);

/* The directory of 'path' ("." when it has none), which its Include
 * lines are relative to.  Caller frees; NULL on ENOMEM. */
char *conf__dir_of(const char *path);

/* The slurm.conf keywords with no counterpart in Drover (conf_inert.c):
 * global ones and those of PartitionName= and NodeName= lines, in one
 * table.  An ONLY row ('only') accepts its 'values' (any case; none: the
 * feature is unsupported and every value is refused); a NO_EFFECT row
 * accepts any value and records a notice in conf->notices. */
enum conf_inert_scope {
    CONF_INERT_GLOBAL,
    CONF_INERT_PARTITION,
    CONF_INERT_NODE,
};

#define CONF_INERT_MAX_VALUES 4

struct conf_inert {
    enum conf_inert_scope scope;
    const char *name;  /* Slurm's spelling; matched case-insensitively */
    bool only;         /* true: ONLY 'values'; false: NO_EFFECT */
    const char *why;   /* a short sentence, without a final period */
    const char *values[CONF_INERT_MAX_VALUES]; /* NULL-terminated unless
                                                * full */
};

/* The row of 'scope' named 'name', or NULL. */
const struct conf_inert *conf__inert_find(enum conf_inert_scope scope,
                                          const char *name);

/* The whole table (*count rows), for tests. */
const struct conf_inert *conf__inert_table(size_t *count);

/* Pair 'kv' of line 'l' for row 'k': an empty value (Slurm's default) is
 * accepted; an ONLY row's other values fail with EINVAL and "file:line:
 * [PartitionName=p: ]Key=value: why (a, b or c)"; a NO_EFFECT row's
 * value adds "file:line: [NodeName=n: ]Key=value has no effect in Drover:
 * why" to conf->notices.  Returns 0, or -1 with 'error' set (ENOMEM
 * too). */
int conf__inert_apply(struct slurm_conf *conf, const struct conf_inert *k,
                      const struct conf_line *l, const struct conf_pair *kv,
                      drv_error_t *error);

/* Value 'value' of row 'k' given to a running controller (scontrol
 * update): accepted (0) when it is empty or one an ONLY row accepts
 * (Drover's behaviour: no change); else -1 with the reason in 'why'
 * ("why (a or b)", or "has no effect in Drover: why" for a NO_EFFECT
 * row, which a change never takes silently). */
int conf__inert_check(const struct conf_inert *k, const char *value,
                      char *why, size_t size);

/* Free conf->notices. */
void conf__notices_clear(struct slurm_conf *conf);

/* Append "file:line: RECORDKey=value has no effect in Drover: why" (record
 * is "" or "NodeName=n: ") to the list *v of *n lines, growing it.
 * Returns 0, or -1 with 'error' set (ENOMEM). */
int conf__notice_add(char ***v, size_t *n, const struct conf_line *l,
                     const char *record, const struct conf_pair *kv,
                     const char *why, drv_error_t *error);

/* Free a list of notices and zero it. */
void conf__notice_list_free(char ***v, size_t *n);

/* Read a whole file into a NUL-terminated string.  Caller frees.  NULL with
 * errno from open/read, or ENOMEM.
 */
char *conf__read_file(const char *path);

/* SlurmctldParameters= (conf_ctld_params.c): drover_raft_port= and the
 * rl_* items into conf->raft_port and conf->rl; other items are accepted
 * and not used.  Returns 0, or -1 with errno EINVAL and 'error' naming
 * the file and the item. */
int conf__ctld_params(struct slurm_conf *conf, drv_error_t *error);

/* SlurmdParameters= (conf_slurmd_params.c): drover_metrics= into
 * conf->metrics; Slurm's own items accepted, others refused.  Returns 0,
 * or -1 with errno EINVAL and 'error' naming the file and the item. */
int conf__slurmd_params(struct slurm_conf *conf, drv_error_t *error);
/* BcastParameters= into conf->bcast (conf_bcast.c); -1 with errno EINVAL
 * and 'error' naming an unknown item. */
int conf__bcast_params(struct slurm_conf *conf, drv_error_t *error);
/* CommunicationParameters= into conf->tls (conf_comm_params.c). */
int conf__comm_params(struct slurm_conf *conf, drv_error_t *error);

/* TaskPluginParam= into conf->task_param (conf_task_param.c); -1 with
 * EINVAL and 'error' naming the bad item. */
int conf__task_param(struct slurm_conf *conf, drv_error_t *error);

/* Format into 'error', set errno=EINVAL, return -1. */
int conf__einval(drv_error_t *error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Say "out of memory" in 'error', set errno=ENOMEM, return -1. */
int conf__enomem(drv_error_t *error);

/* Setters shared with conf_dbd.c (conf.c).  Each returns NULL, or why the
 * value is refused ("" for ENOMEM).  conf__set_string returns 0 or -1.
 */
int conf__set_string(char **field, const char *value, size_t n);
const char *conf__set_debug(char **field, const char *value);
const char *conf__set_authinfo(char **field, const char *value);
/* AuthAltTypes= and AuthAltParameters= (conf_auth.c): checked, then kept
 * as written.  Return NULL, or why not ("" for ENOMEM). */
const char *conf__set_auth_alt_types(char **field, const char *value);
const char *conf__set_auth_alt_params(char **field, const char *value);

/* A port keyword ("6817", or a range "6817-6818" of which the first is
 * used).  Returns NULL, or what is wrong ("" for ENOMEM). */
const char *conf__set_port(uint16_t *field, const char *value);

/* One gres.conf Name=shard (or mps) line that applies to a node
 * (conf_shard.c). */
struct conf__shard_line {
    const char *file;        /* for messages */
    int line;
    uint32_t count;          /* Count= */
    const hostlist_t *files; /* File=: the GPUs shared over, or NULL: all */
};

/* The sum of the node's Gres= counts of 'name' (any type). */
uint32_t conf__gres_total(const struct conf_node *node, const char *name);

/* node->gpu_shards and gpu_share from its gres.conf Name='name' lines
 * ("shard" or "mps"; file order) and its Gres= total of 'name', after its
 * gpu devices are made: each line's Count= shared evenly over its File=
 * GPUs (all GPUs without File=), the first ones one more when it does not
 * divide; no line: the Gres= total shared over all GPUs.  Returns 0
 * (gpu_shards stays NULL without such shares), or -1 with 'error' set:
 * shares and no GPUs, a File= that is no GPU of the node, the lines' sum
 * differing from Gres= (naming the last line), ENOMEM.
 */
int conf__gres_shards(struct conf_node *node, const char *name,
                      const struct conf__shard_line *lines, size_t nlines,
                      drv_error_t *error);

/* Each item of the comma list 'list' (NULL: none) to 'one' with 'conf'
 * and 'error', in order, until one returns -1: the *Parameters= keys
 * (conf_ctld_params.c, conf_slurmd_params.c, conf_task_param.c).
 * Returns 0, or -1 with the item's error (ENOMEM: 'error' says so). */
int conf__each_item(struct slurm_conf *conf, const char *list,
                    int (*one)(struct slurm_conf *conf, const char *item,
                               drv_error_t *error),
                    drv_error_t *error);

/* Value parsers: 0, or -1 (the caller writes the message).  Numbers are
 * plain decimal with no sign.
 */
int conf__parse_u32(const char *s, uint32_t *out);
int conf__parse_u64(const char *s, uint64_t *out);
int conf__parse_bool(const char *s, bool *out); /* YES/NO/TRUE/FALSE/1/0 */
int conf__parse_mib(const char *s, uint64_t *mib); /* "4096", "16G" */

/* Parse a port list: "6818", "17001-17004", "[17001-17004,17010]".
 * On success *ports is a new array (caller frees) of *count ports, in order.
 * -1 with errno EINVAL or ENOMEM.
 */
int conf__parse_ports(const char *s, uint16_t **ports, size_t *count);

/* A configuration at Slurm's defaults read from 'path' (no node, no
 * partition yet).  NULL with errno ENOMEM. */
struct slurm_conf *conf__create(const char *path);

/* Name -> position index over strings the caller keeps alive. */
struct conf_index *conf__index_create(void);
int conf__index_add(struct conf_index *ix, const char *name, size_t pos);
long conf__index_find(const struct conf_index *ix, const char *name);
void conf__index_destroy(struct conf_index *ix);

struct node_spec;
struct conf_part_spec;
struct part_src;

/* State of one conf_parse() call. */
struct conf_parser {
    struct slurm_conf *conf;
    const char *confdir;
    size_t node_alloc;
    size_t part_alloc;
    struct node_spec *node_defaults; /* from NodeName=DEFAULT, or NULL */
    struct conf_part_spec *part_defaults; /* from PartitionName=DEFAULT,
                                          * or NULL */
    struct part_src *part_srcs;      /* per partition: where and Nodes= */
    bool client; /* conf_load_client(): node lines checked, not expanded */
};

/* conf_node.c */
int conf__node_line(struct conf_parser *p, const struct conf_line *l,
                    drv_error_t *error);
int conf__down_line(struct conf_parser *p, const struct conf_line *l,
                    drv_error_t *error);
void conf__node_clear(struct conf_node *node);
void conf__node_spec_destroy(struct node_spec *spec);

/* Parse a Gres= value ("gpu:8", "gpu:a100:4,gpu:v100:4").  On success
 * *gres is a new array (free each with conf__gres_clear(), then the array)
 * of *count entries.  On failure -1 with errno and 'why' (a short reason,
 * without the keyword) filled.
 */
int conf__gres_parse(const char *value, struct conf_gres **gres,
                     size_t *count, char *why, size_t whylen);
void conf__gres_clear(struct conf_gres *g);

/* conf_part.c */
int conf__part_line(struct conf_parser *p, const struct conf_line *l,
                    drv_error_t *error);
/* Resolve each partition's Nodes= against the nodes; after the last line. */
int conf__part_resolve(struct conf_parser *p, drv_error_t *error);
void conf__part_clear(struct conf_partition *part);
/* Free what the parser holds; PartitionName=DEFAULT moves to the conf. */
void conf__part_parser_clear(struct conf_parser *p);
void conf__part_defaults_free(struct slurm_conf *conf);

/* conf_gres.c: read gres.conf text ('text' NULL: no gres.conf) and fill
 * each node's gres_devs.
 */
int conf__gres_devs(struct conf_parser *p, const char *file, const char *text,
                    drv_error_t *error);
void conf__gres_dev_clear(struct conf_gres_dev *dev);

/* A word of a flags keyword (AccountingStorageEnforce=, PrivateData=,
 * PriorityFlags=) in print order: printed as 'word' when 'flag' is set;
 * reading it turns on 'sets' (an alias such as "all" has flag 0). */
struct flag_word {
    const char *word;
    uint32_t flag, sets;
};

/* A comma list of the words of 'words' (n_words rows; any case) into
 * *field.  Returns NULL, or 'expected' for a word not in the table. */
const char *conf__set_flags(uint32_t *field, const char *value,
                            const struct flag_word *words, size_t n_words,
                            const char *expected);

/* 'flags' as the comma list of the table's words into buf (size bytes),
 * or 'empty' when none is set.  Returns buf. */
char *conf__flags_string(uint32_t flags, const struct flag_word *words,
                         size_t n_words, const char *empty, char *buf,
                         size_t size);

/* PrologFlags= (a comma list of Slurm's flag words, any case; those
 * Drover does not run refused by name), in conf_prolog.c.  Returns NULL,
 * or why the value is refused (valid until the next call). */
const char *conf__set_prolog_flags(uint32_t *field, const char *value);

/* HealthCheckNodeState= (a comma list; CYCLE alone means CYCLE,ANY) and
 * JobContainerType= (job_container/none or job_container/tmpfs), in
 * conf_health.c.  Return NULL, or why the value is refused ("" ENOMEM). */
const char *conf__set_health_state(uint32_t *field, const char *value);
const char *conf__set_job_container(char **field, const char *value);

/* job_container.conf beside slurm.conf into conf->job_container
 * (conf_jc.c): required, and read, only with
 * JobContainerType=job_container/tmpfs.  Returns 0 or -1 with 'error'. */
int conf__load_job_container(struct slurm_conf *conf, const char *confdir,
                             drv_error_t *error);

/* The job_container.conf text 'text' into 'jc', whose path (jc->path,
 * set by the caller) names it in errors; includes are read from
 * 'confdir'.  Returns 0, or -1 with 'error' (file:line); either way
 * conf__job_container_clear() frees what was read. */
int conf__parse_job_container(struct conf_job_container *jc,
                              const char *text, const char *confdir,
                              drv_error_t *error);

/* Free what conf->job_container holds and zero it. */
void conf__job_container_clear(struct conf_job_container *jc);

/* oci.conf in 'confdir' into conf->oci when the file exists (conf_oci.c):
 * unknown keys and an incomplete RunTime* set refused with file:line.
 * Returns 0, or -1 with 'error'. */
int conf__load_oci(struct slurm_conf *conf, const char *confdir,
                   drv_error_t *error);
/* The oci.conf text 'text' into a zeroed 'oci', which takes 'path' (the
 * file's name in errors; freed with it); includes are read from
 * 'confdir'.  Returns 0, or -1 with 'error'; either way conf__oci_clear()
 * frees what was read. */
int conf__parse_oci(struct conf_oci *oci, char *path, const char *text,
                    const char *confdir, drv_error_t *error);
void conf__oci_clear(struct conf_oci *oci);

/* conf->oci for the step daemons (conf_step.c): to JSON, and back into
 * a zeroed *oci ('o' NULL: no oci.conf).  Returns 0 or -1 with 'error'. */
json_t *conf__oci_to_json(const struct conf_oci *oci);
int conf__oci_from_json(json_t *o, struct conf_oci *oci, drv_error_t *error);

/* Set Priority* keyword 'key' (or FairShareDampeningFactor) of 'p' to
 * 'value' (conf_priority.c).  Returns NULL, why the value is bad, or ""
 * for ENOMEM. */
const char *conf__set_priority(struct conf_priority *p, const char *key,
                               const char *value);

/* Free what conf__set_priority() allocated. */
void conf__priority_clear(struct conf_priority *p);

/* Parse SchedulerParameters=opt,opt=value,... into 's' (conf_sched.c).
 * Returns NULL or why not. */
const char *conf__set_sched_params(struct conf_sched *s, const char *value);

/* Set PreemptType, PreemptMode or PreemptExemptTime of 'conf' to 'value'
 * (conf_preempt.c).  Returns NULL or why the value is bad. */
const char *conf__set_preempt(struct slurm_conf *conf, const char *key,
                              const char *value);

/* After the last line: SUSPEND (global or a partition's) needs GANG in the
 * global PreemptMode, as Slurm's.  Returns 0, or -1 with EINVAL and
 * 'error' saying why. */
int conf__preempt_check(const struct slurm_conf *conf, drv_error_t *error);

/* The job-lifecycle values (conf_lifecycle.c).  OverTimeLimit=: minutes
 * or UNLIMITED into *minutes; RequeueExit=/RequeueExitHold=: a checked
 * exit code list kept as written in *field.  Each returns NULL, why the
 * value is bad, or "" for ENOMEM. */
const char *conf__parse_overtime(const char *value, uint32_t *minutes);
const char *conf__set_exit_codes(char **field, const char *value);

/* After the last line: FirstJobId below MaxJobId.  Returns 0, or -1 with
 * EINVAL and 'error' saying why. */
int conf__lifecycle_check(const struct slurm_conf *conf, drv_error_t *error);

#endif /* !DROVER_CONF_CONF_PRIVATE_H */
