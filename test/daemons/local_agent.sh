#!/bin/sh
# local_agent.sh HOST CMD...: a stand-in for ssh in tests on one machine
# (PRTE_MCA_plm_ssh_agent). It runs CMD here, with PX_PRTED_TEST_NODENAME=HOST so the
# prted reports HOST as its node name. Hosts named "synth*" get another hardware
# topology (PX_PRTED_TEST_SYNTHETIC). When PX_AGENT_PIDS names a directory, the
# daemon's pid (this shell's, which exec's CMD) is written there as HOST.pid. With
# PX_AGENT_NO_STDERR=1 the daemon's stderr goes nowhere (as with a remote shell or a
# resource manager that does not carry it back): what it has to say must reach the
# controller through the protocol (REPORT).
host=$1
shift
# PX_AGENT_SLOW_RELAY=HOST: that host's daemon relays messages down the routing tree
# 300 ms late (PX_PRTED_TEST_RELAY_DELAY_MS), so messages straight from the controller
# reach its children before the job's LAUNCH does
if [ "${PX_AGENT_SLOW_RELAY:-}" = "$host" ]; then
    export PX_PRTED_TEST_RELAY_DELAY_MS=300
fi
case $host in
synth*) export PX_PRTED_TEST_SYNTHETIC="pack:2 core:2 pu:1" ;;
esac
if [ -n "${PX_AGENT_PIDS:-}" ]; then
    echo $$ >"$PX_AGENT_PIDS/$host.pid"
fi
if [ -n "${PX_AGENT_NO_STDERR:-}" ]; then
    exec 2>/dev/null
fi
PX_PRTED_TEST_NODENAME=$host exec "$@"
