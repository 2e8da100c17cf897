#!/bin/sh
# Runs a test under mpiexec:   run_mpi_test.sh MPIEXEC ARGS...
# Its ranks mark that they started (ranks_started.h). When none did, mpiexec could not start them
# on this machine (MPI cannot run here): that is said, and the exit status is 77, which CTest
# reports as skipped. Otherwise the test's own status.
mark="${TMPDIR:-/tmp}/tinyamp-ranks-started-$$"
rm -f "$mark"
TINYAMP_RANKS_STARTED_MARK="$mark" "$@"
status=$?
if [ -e "$mark" ]; then
  rm -f "$mark"
  exit "$status"
fi
echo "tinyamp: mpiexec could not start the ranks on this machine (exit $status): MPI cannot start here, so this test is skipped. Run $1 by hand to see why."
exit 77
