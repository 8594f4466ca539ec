/* SPDX-License-Identifier: Apache-2.0
 *
 * mailtype.h - Slurm's --mail-type values and the subjects of job mail
 *
 * The bits are Slurm 22.05's MAIL_* values (slurm.h), so a record's
 * mail_type reads the same as Slurm's; the subjects are those slurmctld
 * 22.05 passes to MailProg (recorded from a real slurmctld 22.05.8 with a
 * MailProg that logs its argv: tests/e2e/data/mail_reference.txt).
 */
#ifndef DROVER_COMMON_MAILTYPE_H
#define DROVER_COMMON_MAILTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAIL_BEGIN          0x0001u
#define MAIL_END            0x0002u
#define MAIL_FAIL           0x0004u
#define MAIL_REQUEUE        0x0008u
#define MAIL_TIME100        0x0010u /* TIME_LIMIT */
#define MAIL_TIME90         0x0020u
#define MAIL_TIME80         0x0040u
#define MAIL_TIME50         0x0080u
#define MAIL_STAGE_OUT      0x0100u
#define MAIL_ARRAY_TASKS    0x0200u
#define MAIL_INVALID_DEPEND 0x0400u
/* ALL, as Slurm 22.05 expands it (scontrol show job prints
 * INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT for --mail-type=ALL). */
#define MAIL_ALL (MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE             \
                  | MAIL_STAGE_OUT | MAIL_INVALID_DEPEND)
#define MAIL_TYPE_MASK 0x07ffu /* every bit above */

/* Parse a --mail-type / MailType= list ("END,FAIL", case-insensitive:
 * NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT,
 * TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS)
 * into *bits (NONE adds nothing).  Returns 0, or -1 with errno EINVAL for
 * an empty list or an unknown word (*bits untouched). */
int mailtype_parse(const char *s, uint32_t *bits);

/* 'bits' as scontrol show job writes MailType=: the words in Slurm's order
 * (ARRAY_TASKS, INVALID_DEPEND, BEGIN, END, FAIL, REQUEUE, STAGE_OUT,
 * TIME_LIMIT_50, TIME_LIMIT_80, TIME_LIMIT_90, TIME_LIMIT), "NONE" for 0.
 * Writes into buf (size bytes; 160 is always enough) and returns buf. */
char *mailtype_string(uint32_t bits, char *buf, size_t size);

/* The event word of one mail: "Began", "Ended", "Failed", "Requeued",
 * "Reached time limit", "Reached 90% of time limit" (80, 50), "Invalid
 * dependency", "StageOut/Teardown"; SLURM_JOB_MAIL_TYPE in MailProg's
 * environment.  'type' is one bit; "unknown" otherwise.  Static. */
const char *mailtype_event(uint32_t type);

/* What one mail's subject says about a job (all borrowed). */
struct mail_subject {
    uint32_t type;         /* one MAIL_* bit */
    uint32_t job_id;
    const char *name;      /* the job name */
    bool array_task;       /* "Slurm Array Task Job_id=A_T (J)" */
    bool array_summary;    /* "Slurm Array Summary Job_id=A_* (J)" */
    uint32_t array_job_id, array_task_id;
    int64_t secs;          /* BEGIN: queued; END, FAIL, REQUEUE, TIME*:
                            * run time; -1: none (an array summary) */
    const char *state;     /* END, FAIL: "COMPLETED", "Mixed" (a summary
                            * of tasks that ended in different states) */
    int exit_status;       /* END, FAIL: raw wait status */
    int exit_min, exit_max;/* END, FAIL of a summary: raw wait statuses */
    int max_signal;        /* END, FAIL of a summary: the highest signal a
                            * task ended by (a cancel counts as 9), 0: none */
};

/* Room for any subject: a job name is at most 1024 bytes (the protocol's
 * string limit), the rest under 200. */
#define MAIL_SUBJECT_MAX 1280

/* Write the subject slurmctld 22.05 gives MailProg after -s:
 *   Slurm Job_id=7 Name=x Began, Queued time 00:00:01
 *   Slurm Job_id=7 Name=x Ended, Run time 00:00:02, COMPLETED, ExitCode 0
 *   Slurm Job_id=7 Name=x Failed, Run time 00:00:00, FAILED   (a signal)
 *   Slurm Job_id=7 Name=x Requeued, Run time 00:00:04
 *   Slurm Job_id=7 Name=x Reached 50% of time limit, Run time 00:00:47
 *   Slurm Job_id=7 Name=x Invalid dependency
 *   Slurm Array Summary Job_id=5_* (5) Name=x Failed, Mixed, ExitCode [0-2]
 *   Slurm Array Summary Job_id=5_* (5) Name=x Ended, CANCELLED, MaxSignal [9]
 * into buf (size bytes; truncated, always terminated).  Returns buf. */
char *mail_subject_write(const struct mail_subject *m, char *buf, size_t size);

#endif /* !DROVER_COMMON_MAILTYPE_H */
