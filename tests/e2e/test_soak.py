# SPDX-License-Identifier: Apache-2.0
"""A minute of issue 17's soak on every CI run (tests/e2e/soak.py): a
mixed workload of batch jobs, srun steps, GPU jobs, arrays, dependencies,
interactive srun jobs, cancels and a time limit, as root and as an
ordinary user, while a node crashes and droverdbd and droverctld are
killed with SIGKILL and started again.  Then every job is in sacct
exactly once with a final state, and under the sanitizer build no daemon
reported an error or a leak (the cluster fixture).  bench/soak runs the
same for 30 minutes."""

import pytest

from soak import Soak

SECONDS = 60


@pytest.mark.parametrize("cluster", [{"nodes": 3, "gpus_per_node": 2}],
                         indirect=True)
def test_a_minute_of_mixed_work_and_faults_loses_no_job(cluster, test_user):
    soak = Soak(cluster, cluster.workdir, seed=17, user=test_user,
                faults={"node": 20, "dbd": 25, "ctld": 30})
    soak.run(SECONDS)
    print(soak.summary())
    print(dict(soak.refusals))
    assert soak.counts["fault:node"] >= 1, soak.summary()
    assert soak.counts["fault:dbd"] >= 1, soak.summary()
    assert soak.counts["fault:ctld"] >= 1, soak.summary()
    assert len(soak.jobs) >= 50, soak.summary()
    soak.drain(timeout=300)
    print(soak.check(timeout=180))
