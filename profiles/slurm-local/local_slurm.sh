#!/usr/bin/env bash
# A single-node SLURM on this machine (Debian's slurm-wlm and munge, as root, on localhost), for testing the
# slurm profile against real sbatch. Usage: local_slurm.sh start | stop | status
#   start   installs slurm-wlm and munge if missing, writes /etc/slurm/slurm.conf (the standard path: srun inside
#           jobs ignores SLURM_CONF elsewhere), starts munged, slurmctld and slurmd, waits until the node is idle
#   stop    stops the daemons it started and removes the configuration it wrote (leaving the daemons down with the
#           configuration in place makes every snakemake call with the slurm plugin installed wait about 10 s for
#           `scontrol show config`, so always stop after use)
# It refuses (exit 3) to touch a machine that has a SLURM of its own: a slurm.conf it did not write, or a SLURM or
# munge daemon it did not start. No accounting daemon: the profile uses `squeue` for job status.
set -euo pipefail
STATE=/var/lib/dplab-slurm
CONF=/etc/slurm/slurm.conf
MARK="# written by dplab profiles/slurm-local/local_slurm.sh"

need_root() {
  if [ "$(id -u)" != 0 ]; then echo "local_slurm.sh: must run as root (it installs packages and starts daemons)" >&2; exit 1; fi
}

install_packages() {
  if command -v slurmctld >/dev/null && command -v munged >/dev/null; then return; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q slurm-wlm munge >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q slurm-wlm munge >/dev/null; }
}

write_config() {
  local host node memory
  host=$(hostname -s)
  # slurmd -C reports this node's CPUs, sockets, cores and memory; leave 1 GB of memory to the system.
  node=$(slurmd -C | head -n 1)
  memory=$(echo "$node" | grep -o 'RealMemory=[0-9]*' | cut -d= -f2)
  node=$(echo "$node" | sed "s/RealMemory=$memory/RealMemory=$((memory - 1024))/")
  mkdir -p /etc/slurm "$STATE"/{ctld,d} /var/log/slurm
  cat > "$CONF" <<CONF
$MARK
ClusterName=dplab
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=600
ReturnToService=2
SchedulerParameters=sched_interval=1
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
$node State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

ours() { [ -f "$CONF" ] && head -n 1 "$CONF" | grep -qxF "$MARK"; }

refuse_foreign() {
  if [ -e "$CONF" ] && ! ours; then
    echo "local_slurm.sh: refusing: $CONF exists and was not written by this script (a SLURM of this machine)" >&2
    exit 3
  fi
  if ! ours; then
    for daemon in slurmctld slurmd munged; do
      if pgrep -r D,R,S -x "$daemon" >/dev/null; then
        echo "local_slurm.sh: refusing: $daemon is running and was not started by this script" >&2
        exit 3
      fi
    done
  fi
}

start() {
  need_root
  refuse_foreign
  install_packages
  write_config
  mkdir -p /run/munge && chown munge:munge /run/munge
  [ -s /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 || create-munge-key -f >/dev/null; }
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
  pgrep -x slurmctld >/dev/null || slurmctld
  pgrep -x slurmd >/dev/null || slurmd
  for _ in $(seq 1 60); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1 || true)
    case "$state" in
      idle|mixed|allocated) echo "local SLURM is up: node $(hostname -s) $state"; return 0 ;;
      down*|drain*) scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 1
  done
  echo "local SLURM did not come up; see /var/log/slurm/" >&2
  exit 1
}

pids() { cat "$STATE"/slurmd.pid "$STATE"/slurmctld.pid /run/munge/munged.pid 2>/dev/null || true; }

running() { for pid in $(pids); do kill -0 "$pid" 2>/dev/null && return 0; done; return 1; }

stop() {
  need_root
  if ! ours; then echo "local_slurm.sh: nothing to stop ($CONF was not written by this script)"; return 0; fi
  scontrol shutdown >/dev/null 2>&1 || true
  for pid in $(pids); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 20); do running || break; sleep 0.5; done
  for pid in $(pids); do kill -9 "$pid" 2>/dev/null || true; done
  rm -f "$CONF" "$STATE"/*.pid /run/munge/munged.pid
  echo "local SLURM stopped"
}

status() { sinfo 2>&1 && squeue 2>&1; }

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start | stop | status" >&2; exit 2 ;;
esac
