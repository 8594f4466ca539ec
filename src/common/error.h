/* SPDX-License-Identifier: Apache-2.0
 *
 * error.h - error texts for people and Slurm's error numbers for the wire
 *
 * In-process functions return -1/NULL with errno set and fill an optional
 * drv_error_t with a reason a person can act on.  Codes that cross the wire
 * come from one table, DRV_ERRORS, holding Slurm's numbers and texts so the
 * commands print the lines Slurm users already know.
 */
#ifndef DROVER_COMMON_ERROR_H
#define DROVER_COMMON_ERROR_H

typedef struct {
    char text[160]; /* same size as jansson's json_error_t text */
} drv_error_t;

/* code, number, message.  Numbers and texts are Slurm 22.05's (slurm_errno.h,
 * slurm_errno.c) where Slurm has the same error: scancel and others exit with
 * the number's low byte, as Slurm's commands do.  Codes Drover alone has sit
 * in DRV_LOCAL_ERRORS below, above every number Slurm uses.
 */
#define DRV_ERRORS(X)                                                          \
    X(COMMUNICATIONS_CONNECTION, 1001, "Communication connection failure")     \
    X(PROTOCOL_AUTH, 1007, "Protocol authentication error")                    \
    X(CTLD_COMMUNICATIONS_CONNECTION, 1800, "Unable to contact slurm controller (connect failure)") \
    X(CTLD_COMMUNICATIONS_BACKOFF, 1804, "Rate limit exceeded, please retry momentarily") \
    X(INVALID_PARTITION_NAME, 2000, "Invalid partition name specified")        \
    X(DEFAULT_PARTITION_NOT_SET, 2001, "No partition specified or system default partition") \
    X(ACCESS_DENIED, 2002, "Access/permission denied")                         \
    X(JOB_MISSING_REQUIRED_PARTITION_GROUP, 2003, "User's group not permitted to use this partition") \
    X(REQUESTED_NODES_NOT_IN_PARTITION, 2004, "Requested nodes not in this partition") \
    X(TOO_MANY_REQUESTED_CPUS, 2005, "More processors requested than permitted") \
    X(INVALID_NODE_COUNT, 2006, "Node count specification invalid")            \
    X(ERROR_ON_DESC_TO_RECORD_COPY, 2007, "Unable to create job record, try again") \
    X(JOB_MISSING_SIZE_SPECIFICATION, 2008, "Job size specification needs to be provided") \
    X(JOB_SCRIPT_MISSING, 2009, "Job script not specified")                    \
    X(USER_ID_MISSING, 2010, "Invalid user id")                                \
    X(DUPLICATE_JOB_ID, 2011, "Duplicate job id")                              \
    X(PATHNAME_TOO_LONG, 2012, "Pathname of a file, directory or other parameter too long") \
    X(NOT_TOP_PRIORITY, 2013, "Immediate execution impossible, insufficient priority") \
    X(REQUESTED_NODE_CONFIG_UNAVAILABLE, 2014, "Requested node configuration is not available") \
    X(REQUESTED_PART_CONFIG_UNAVAILABLE, 2015, "Requested partition configuration not available now") \
    X(NODES_BUSY, 2016, "Requested nodes are busy")                            \
    X(INVALID_JOB_ID, 2017, "Invalid job id specified")                        \
    X(INVALID_NODE_NAME, 2018, "Invalid node name specified")                  \
    X(WRITING_TO_FILE, 2019, "I/O error writing script/environment to file")   \
    X(TRANSITION_STATE_NO_UPDATE, 2020, "Job can not be altered now, try again later") \
    X(ALREADY_DONE, 2021, "Job/step already completing or completed")          \
    X(JOB_PENDING, 2024, "Job is pending execution")                           \
    X(BAD_TASK_COUNT, 2025, "Task count specification invalid")               \
    X(IN_STANDBY_MODE, 2027, "Slurm backup controller in standby mode")        \
    X(INVALID_NODE_STATE, 2028, "Invalid node state specified")                \
    X(INVALID_FEATURE, 2029, "Invalid feature specification")                  \
    X(NOT_SUPPORTED, 2036, "Requested operation not supported on this system") \
    X(DISABLED, 2037, "Requested operation is presently disabled")             \
    X(DEPENDENCY, 2038, "Job dependency problem")                              \
    X(BATCH_ONLY, 2039, "Only batch jobs are accepted or processed")           \
    X(JOB_HELD, 2042, "Job is in held state, pending scheduler release")       \
    X(INVALID_TASK_MEMORY, 2044, "Memory required by task is not available") \
    X(INVALID_ACCOUNT, 2045, "Invalid account or account/partition combination specified") \
    X(ACCOUNTING_POLICY, 2050, "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)") \
    X(INVALID_TIME_LIMIT, 2051, "Requested time limit is invalid (missing or exceeds some limit)") \
    X(RESERVATION_ACCESS, 2052, "Access denied to requested reservation")     \
    X(RESERVATION_INVALID, 2053, "Requested reservation is invalid")          \
    X(INVALID_TIME_VALUE, 2054, "Invalid time specified")                      \
    X(RESERVATION_OVERLAP, 2058, "Requested reservation overlaps with another reservation") \
    X(INVALID_QOS, 2066, "Invalid qos specification")                          \
    X(INVALID_CPU_COUNT, 2069, "CPU count specification invalid")              \
    X(PARTITION_NOT_AVAIL, 2070, "Required partition not available (inactive or drain)") \
    X(INVALID_GRES, 2072, "Invalid generic resource (gres) specification")     \
    X(JOB_NOT_PENDING, 2073, "Job is no longer pending execution")             \
    X(PARTITION_IN_USE, 2075, "Partition is in use")                           \
    X(STEP_LIMIT, 2076, "Step limit reached for this job")                     \
    X(INVALID_ARRAY, 2081, "Invalid job array specification")                  \
    X(RESERVATION_NAME_DUP, 2082, "Duplicate reservation name")               \
    X(JOB_NOT_RUNNING, 2085, "Job is not running")                             \
    X(JOB_NOT_SUSPENDED, 2087, "Job is not suspended")                         \
    X(JOB_NOT_FINISHED, 2088, "Job is not finished")                           \
    X(INVALID_NICE, 2123, "Invalid --nice value")                              \
    X(INVALID_TIME_MIN_LIMIT, 2124, "Invalid time-min specification (exceeds job's time or other limits)") \
    X(PROLOG_FAILED, 4022, "Job prolog failed")                               \
    X(SOCKET_ZERO_BYTES_SENT, 5005, "Zero Bytes were transmitted or received") \
    X(DB_CONNECTION, 7000, "Unable to connect to database")                    \
    DRV_LOCAL_ERRORS(X)

/* Drover's own codes, from DRV_LOCAL_ERRNO_BASE up: Slurm has no equivalent
 * (its highest range starts at 13000).  Their low bytes mean nothing to
 * Slurm tools: a command exits 1 for them (drv_exit_status()).  Every code
 * here and above is 1000 or more, outside errno's range, so an errno value
 * that crosses the wire keeps its own meaning (EPERM is not "Unspecified
 * error"); tests/unit/test_error.c holds the table to that.
 */
#define DRV_LOCAL_ERRNO_BASE 20000
#define DRV_LOCAL_ERRORS(X)                                                    \
    X(ERROR, 20099, "Unspecified error")                                       \
    X(PROTOCOL_MALFORMED, 20000, "Protocol message malformed")                 \
    X(JOURNAL_WRITE, 20001, "Unable to save job state, try again")             \
    X(ACCT_STORAGE, 20010, "Accounting database error")                        \
    X(CONTROL_CHARACTER, 20020, "Job parameter holds a control character (newline, tab, escape)")

enum drv_errnum {
#define X(name, num, msg) EDRV_##name = num,
    DRV_ERRORS(X)
#undef X
};

/* Format into 'error' (if non-NULL), preserving errno.  Always returns -1,
 * so a function can end with "return errprintf(error, ...)".
 */
int errprintf(drv_error_t *error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Text for an EDRV_* number or an errno value.  Never NULL; static storage
 * (strerror's for errno values).
 */
const char *drv_strerror(int errnum);

/* The exit status a command gives for error 'errnum' (non-zero): Slurm's
 * commands exit with the error number's low byte; Drover's own codes
 * (DRV_LOCAL_ERRNO_BASE and up) and numbers whose low byte is 0 give 1.
 */
int drv_exit_status(int errnum);

/* Symbolic name, e.g. "EDRV_INVALID_JOB_ID", or "errno" for errno values.
 * Static storage, never NULL.
 */
const char *drv_errname(int errnum);

#endif /* !DROVER_COMMON_ERROR_H */
