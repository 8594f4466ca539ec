/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_opt.c - sacct's options table; the help lines are Slurm 22.05's
 * sacct --help byte for byte, trailing blanks included (golden help-sacct),
 * split across literals only to keep source lines short.
 */
#include "config.h"

#include "cmd/lib/sacct_opt.h"

#define OPT_USAGE SACCT_OPT_USAGE
#define OPT_NAME SACCT_OPT_NAME
#define OPT_UNITS SACCT_OPT_UNITS
#define OPT_NOCONVERT SACCT_OPT_NOCONVERT
#define OPT_JSON SACCT_OPT_JSON
#define OPT_YAML SACCT_OPT_YAML
#define OPT_DELIMITER SACCT_OPT_DELIMITER
#define OPT_ENV_VARS SACCT_OPT_ENV_VARS
#define OPT_FEDERATION SACCT_OPT_FEDERATION
#define OPT_LOCAL SACCT_OPT_LOCAL
#define OPT_WHOLE_HETJOB SACCT_OPT_WHOLE_HETJOB

const char sacct_help_head[] =
    "sacct [<OPTION>]"
    "                                                            \n"
    "     Valid <OPTION> values are:"
    "                                              \n";

const struct cmd_opt sacct_opts[] = {
    {"allusers", 'a', no_argument,
     "     -a, --allusers:"
     "                                                        \n"
     "\t           Display jobs for all users. By default, only the"
     "         \n"
     "                   current user's jobs are displayed.  If ran by user"
     " root  \n"
     "                   this is the default."
     "                                     \n"},
    {"accounts", 'A', required_argument,
     "     -A, --accounts:"
     "                                                        \n"
     "\t           Use this comma separated list of accounts to select jobs"
     " \n"
     "                   to display.  By default, all accounts are selected."
     "      \n"},
    {"brief", 'b', no_argument,
     "     -b, --brief:"
     "                                                           \n"
     "\t           Equivalent to '--format=jobstep,state,error'."
     "            \n"},
    {"batch-script", 'B', no_argument,
     "     -B, --batch-script:"
     "                                                    \n"
     "\t           Print batch script of job."
     "                               \n"
     "                   NOTE: AccountingStoreFlags=job_script is required"
     " for this\n"
     "                   NOTE: Requesting specific job(s) with '-j' is"
     " required   \n"
     "                         for this."
     "                                          \n"},
    {"completion", 'c', no_argument,
     "     -c, --completion: Use job completion instead of accounting data."
     "       \n"},
    {"delimiter", OPT_DELIMITER, required_argument,
     "         --delimiter:"
     "                                                       \n"
     "\t           ASCII characters used to separate the fields when"
     "        \n"
     "\t           specifying the  -p  or  -P options. The default"
     " delimiter\n"
     "\t           is a '|'. This options is ignored if -p or -P options"
     "    \n"
     "\t           are not specified."
     "                                       \n"},
    {"duplicates", 'D', no_argument,
     "     -D, --duplicates:"
     "                                                      \n"
     "\t           If Slurm job ids are reset, some job numbers may"
     "         \n"
     "\t           appear more than once referring to different jobs."
     "       \n"
     "\t           Without this option only the most recent jobs will be"
     "    \n"
     "                   displayed."
     "                                               \n"},
    {"helpformat", 'e', no_argument,
     "     -e, --helpformat:"
     "                                                      \n"
     "\t           Print a list of fields that can be specified with the"
     "    \n"
     "\t           '--format' option"
     "                                        \n"},
    {"help-fields", 'e', no_argument, NULL},
    {"endtime", 'E', required_argument,
     "     -E, --endtime:"
     "                                                         \n"
     "                   Select jobs eligible before this time.  If states"
     " are    \n"
     "                   given with the -s option return jobs in this state"
     " before\n"
     "                   this period."
     "                                             \n"},
    {"env-vars", OPT_ENV_VARS, no_argument,
     "         --env-vars:"
     "                                                        \n"
     "\t           Print the environment to launch the batch script of job."
     " \n"
     "                   NOTE: AccountingStoreFlags=job_env is required for"
     " this  \n"
     "                   NOTE: Requesting specific job(s) with '-j' is"
     " required   \n"
     "                         for this."
     "                                          \n"},
    {"federation", OPT_FEDERATION, no_argument,
     "         --federation: Report jobs from federation if a member of a"
     " one.    \n"},
    {"file", 'f', required_argument,
     "     -f, --file=file:"
     "                                                       \n"
     "\t           Read data from the specified file, rather than Slurm's"
     "   \n"
     "                   current accounting log file. (Only appliciable when"
     "      \n"
     "                   running the jobcomp/filetxt plugin.)"
     "                     \n"},
    {"gid", 'g', required_argument,
     "     -g, --gid, --group:"
     "                                                    \n"
     "\t           Use this comma separated list of gids or group names"
     "     \n"
     "                   to select jobs to display.  By default, all groups"
     " are   \n"
     "                   selected."
     "                                                \n"},
    {"group", 'g', required_argument, NULL},
    {"help", 'h', no_argument,
     "     -h, --help:   Print this description of use."
     "                           \n"},
    {"nnodes", 'i', required_argument,
     "     -i, --nnodes=N:"
     "                                                        \n"
     "                   Return jobs which ran on this many nodes (N ="
     " min[-max]) \n"},
    {"ncpus", 'I', required_argument,
     "     -I, --ncpus=N:"
     "                                                         \n"
     "                   Return jobs which ran on this many cpus (N ="
     " min[-max])  \n"},
    {"jobs", 'j', required_argument,
     "     -j, --jobs:"
     "                                                            \n"
     "\t           Format is <job(.step)>. Display information about this"
     "   \n"
     "                   job or comma-separated list of jobs. The default is"
     " all  \n"
     "                   jobs. Adding .step will display the specific job"
     " step of \n"
     "                   that job. (A step id of 'batch' will display the"
     "         \n"
     "                   information about the batch step.)"
     "                       \n"},
    {"json", OPT_JSON, no_argument,
     "     --json:"
     "                                                                \n"
     "                   Produce JSON output"
     "                                      \n"},
    {"timelimit-min", 'k', required_argument,
     "     -k, --timelimit-min:"
     "                                                   \n"
     "                   Only send data about jobs with this timelimit."
     "           \n"
     "                   If used with timelimit_max this will be the minimum"
     "      \n"
     "                   timelimit of the range.  Default is no restriction."
     "      \n"},
    {"timelimit-max", 'K', required_argument,
     "     -K, --timelimit-max:"
     "                                                   \n"
     "                   Ignored by itself, but if timelimit_min is set this"
     " will \n"
     "                   be the maximum timelimit of the range.  Default is"
     " no    \n"
     "                   restriction."
     "                                             \n"},
    {"local", OPT_LOCAL, no_argument,
     "         --local   Report information only about jobs on the local"
     " cluster. \n"
     "\t           Overrides --federation."
     "                                  \n"},
    {"long", 'l', no_argument,
     "     -l, --long:"
     "                                                            \n"
     "\t           Equivalent to specifying"
     "                                 \n"
     "\t           '--format=jobid,jobidraw,jobname,partition,maxvmsize,"
     "    \n"
     "                             maxvmsizenode,maxvmsizetask,avevmsize,max"
     "rss,  \n"
     "                             maxrssnode,maxrsstask,averss,maxpages,"
     "         \n"
     "                             maxpagesnode,maxpagestask,avepages,mincpu"
     ",     \n"
     "                             mincpunode,mincputask,avecpu,ntasks,alloc"
     "cpus, \n"
     "                             elapsed,state,exitcode,avecpufreq,reqcpuf"
     "reqmin,\n"
     "                             reqcpufreqmax,reqcpufreqgov,reqmem,"
     "            \n"
     "                             consumedenergy,maxdiskread,maxdiskreadnod"
     "e,    \n"
     "                             maxdiskreadtask,avediskread,maxdiskwrite,"
     "      \n"
     "                             maxdiskwritenode,maxdiskwritetask,avedisk"
     "write,\n"
     "                             reqtres,alloctres,"
     "                             \n"
     "                             tresusageinave,tresusageinmax,tresusagein"
     "maxn, \n"
     "                             tresusageinmaxt,tresusageinmin,tresusagei"
     "nminn,\n"
     "                             tresusageinmint,tresusageintot,tresusageo"
     "utmax,\n"
     "                             tresusageoutmaxn,tresusageoutmaxt,"
     "             \n"
     "                             tresusageoutave,tresusageouttot"
     "                \n"},
    {"allclusters", 'L', no_argument,
     "     -L, --allclusters:"
     "                                                     \n"
     "\t           Display jobs ran on all clusters. By default, only jobs"
     "  \n"
     "                   ran on the cluster from where sacct is called are"
     "        \n"
     "                   displayed."
     "                                               \n"},
    {"clusters", 'M', required_argument,
     "     -M, --clusters:"
     "                                                        \n"
     "                   Only send data about these clusters. Use \"all\""
     " for all \n"
     "                   clusters.\n"},
    {"cluster", 'M', required_argument, NULL},
    {"noheader", 'n', no_argument,
     "     -n, --noheader:"
     "                                                        \n"
     "\t           No header will be added to the beginning of output."
     "      \n"
     "                   The default is to print a header."
     "                        \n"},
    {"noconvert", OPT_NOCONVERT, no_argument,
     "     --noconvert:"
     "                                                           \n"
     "\t\t   Don't convert units from their original type             \n"
     "\t\t   (e.g. 2048M won't be converted to 2G).                   \n"},
    {"nodelist", 'N', required_argument,
     "     -N, --nodelist:"
     "                                                        \n"
     "                   Display jobs that ran on any of these nodes,"
     "             \n"
     "                   can be one or more using a ranged string."
     "                \n"},
    {"name", OPT_NAME, required_argument,
     "     --name:"
     "                                                                \n"
     "                   Display jobs that have any of these name(s)."
     "             \n"},
    {"format", 'o', required_argument,
     "     -o, --format:"
     "                                                          \n"
     "\t           Comma separated list of fields. (use \"--helpformat\""
     "    \n"
     "                   for a list of available fields)."
     "                         \n"},
    {"fields", 'o', required_argument, NULL},
    {"parsable", 'p', no_argument,
     "     -p, --parsable: output will be '|' delimited with a '|' at the"
     " end     \n"},
    {"parsable2", 'P', no_argument,
     "     -P, --parsable2: output will be '|' delimited without a '|' at"
     " the end \n"},
    {"qos", 'q', required_argument,
     "     -q, --qos:"
     "                                                             \n"
     "                   Only send data about jobs using these qos.  Default"
     " is all.\n"},
    {"partition", 'r', required_argument,
     "     -r, --partition:"
     "                                                       \n"
     "\t           Comma separated list of partitions to select jobs and"
     "    \n"
     "                   job steps from. The default is all partitions."
     "           \n"},
    {"state", 's', required_argument,
     "     -s, --state:"
     "                                                           \n"
     "\t           Select jobs based on their current state or the state"
     "    \n"
     "                   they were in during the time period given: running"
     " (r),  \n"
     "                   completed (cd), failed (f), timeout (to), resizing"
     " (rs), \n"
     "                   deadline (dl) and node_fail (nf)."
     "                        \n"},
    {"starttime", 'S', required_argument,
     "     -S, --starttime:"
     "                                                       \n"
     "                   Select jobs eligible after this time.  Default is"
     "        \n"
     "                   00:00:00 of the current day, unless '-s' is set"
     " then     \n"
     "                   the default is 'now'."
     "                                    \n"},
    {"truncate", 'T', no_argument,
     "     -T, --truncate:"
     "                                                        \n"
     "                   Truncate time.  So if a job started before"
     " --starttime   \n"
     "                   the start time would be truncated to --starttime."
     "        \n"
     "                   The same for end time and --endtime."
     "                     \n"},
    {"uid", 'u', required_argument,
     "     -u, --uid, --user:"
     "                                                     \n"
     "\t           Use this comma separated list of uids or user names"
     "      \n"
     "                   to select jobs to display.  By default, the running"
     "      \n"
     "                   user's uid is used."
     "                                      \n"},
    {"user", 'u', required_argument, NULL},
    {"units", OPT_UNITS, required_argument,
     "     --units=[KMGTP]:"
     "                                                       \n"
     "                   Display values in specified unit type. Takes"
     " precedence  \n"
     "\t\t   over --noconvert option.                                 \n"},
    {"usage", OPT_USAGE, no_argument,
     "     --usage:      Display brief usage message."
     "                             \n"},
    {"verbose", 'v', no_argument,
     "     -v, --verbose:"
     "                                                         \n"
     "\t           Primarily for debugging purposes, report the state of"
     "    \n"
     "                   various variables during processing."
     "                     \n"},
    {"version", 'V', no_argument,
     "     -V, --version: Print version."
     "                                          \n"},
    {"wckeys", 'W', required_argument,
     "     -W, --wckeys:"
     "                                                          \n"
     "                   Only send data about these wckeys.  Default is all."
     "      \n"},
    {"whole-hetjob", OPT_WHOLE_HETJOB, optional_argument,
     "     --whole-hetjob[=yes|no]:"
     "                                               \n"
     "\t\t   If set to 'yes' (or no argument), then information about \n"
     "\t\t   all the heterogeneous components will be retrieved. If   \n"
     "\t\t   set to 'no' only the specific filtered components will   \n"
     "\t\t   be retrieved. The default behavior without this option is\n"
     "\t\t   that all components are retrieved only if filtering the  \n"
     "\t\t   leader component with --jobs.                            \n"},
    {"associations", 'x', required_argument,
     "     -x, --associations:"
     "                                                    \n"
     "                   Only send data about these association id.  Default"
     " is all.\n"},
    {"allocations", 'X', no_argument,
     "     -X, --allocations:"
     "                                                     \n"
     "\t           Only show statistics relevant to the job allocation"
     "      \n"
     "\t           itself, not taking steps into consideration."
     "             \n"},
    {"yaml", OPT_YAML, no_argument,
     "     --yaml:"
     "                                                                \n"
     "                   Produce YAML output"
     "                                      \n"},
    CMD_OPT_END,
};

const char sacct_help_tail[] =
    "\t"
    "                                                                    \n"
    "     Note, valid start/end time formats are..."
    "                              \n"
    "\t           HH:MM[:SS] [AM|PM]"
    "                                       \n"
    "\t           MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]"
    "                     \n"
    "\t           MM/DD[/YY]-HH:MM[:SS]"
    "                                    \n"
    "\t           YYYY-MM-DD[THH:MM[:SS]]"
    "                                  \n"
    "\t"
    "           now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]\n"
    "\n";
