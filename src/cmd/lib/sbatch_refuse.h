/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_refuse.h - the options of sbatch, salloc and srun Drover refuses
 *
 * Slurm 22.05 documents these options; Drover has no part that would act
 * on them (burst buffers, licenses, MCS labels, specialised cores, node
 * topology requests, federation, ...).  Passing them on would ignore them
 * silently, so they are refused before anything is sent, with a message
 * that names the option and why.  docs/options.md lists them (✘).
 */
#ifndef DROVER_CMD_LIB_SBATCH_REFUSE_H
#define DROVER_CMD_LIB_SBATCH_REFUSE_H

/* Why Drover refuses the option 'name' (long name without "--") with the
 * value 'arg' (NULL: none given), as a short phrase ("no burst buffers"),
 * or NULL when it takes it.  A few options are refused only for values
 * that ask for something (--mem-bind other than none).
 * Static strings; nothing to free.
 */
const char *sbatch_option_refusal(const char *name, const char *arg);

#endif /* !DROVER_CMD_LIB_SBATCH_REFUSE_H */
