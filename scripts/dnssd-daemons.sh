# Sourced by scripts/run-tests.sh and scripts/ipp-dnssd.sh: starts dbus and avahi (DNS-SD for
# ippeveprinter and the daemon's IPP printers) unless the machine runs them, and appends the pids
# it started to the array `dnssd_pids` for the caller to stop. Logs go to $1 (a directory).
dnssd_pids=()
start_dnssd_daemons() {
  local logs=$1
  if ! pgrep -x dbus-daemon >/dev/null && [[ -x /usr/bin/dbus-daemon ]]; then
    mkdir -p /run/dbus && rm -f /run/dbus/pid /run/dbus/system_bus_socket
    /usr/bin/dbus-daemon --system --nofork --nopidfile >"$logs/dbus.log" 2>&1 &
    dnssd_pids+=($!)
    for _ in $(seq 100); do [[ -S /run/dbus/system_bus_socket ]] && break; sleep 0.05; done
  fi
  if ! pgrep -x avahi-daemon >/dev/null && [[ -x /usr/sbin/avahi-daemon ]]; then
    rm -f /run/avahi-daemon/pid
    /usr/sbin/avahi-daemon --no-drop-root --no-chroot >"$logs/avahi.log" 2>&1 &
    dnssd_pids+=($!)
    for _ in $(seq 100); do [[ -S /run/avahi-daemon/socket ]] && break; sleep 0.05; done
  fi
}
