#!/bin/sh
# local_agent.sh HOST CMD...: a stand-in for ssh in tests on one machine
# (PRTE_MCA_plm_ssh_agent). It runs CMD here, with PX_PRTED_TEST_NODENAME=HOST so the
# prted reports HOST as its node name. Hosts named "synth*" get another hardware
# topology (PX_PRTED_TEST_SYNTHETIC). When PX_AGENT_PIDS names a directory, the
# daemon's pid (this shell's, which exec's CMD) is written there as HOST.pid.
host=$1
shift
case $host in
synth*) export PX_PRTED_TEST_SYNTHETIC="pack:2 core:2 pu:1" ;;
esac
if [ -n "${PX_AGENT_PIDS:-}" ]; then
    echo $$ >"$PX_AGENT_PIDS/$host.pid"
fi
PX_PRTED_TEST_NODENAME=$host exec "$@"
