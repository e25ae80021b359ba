/**
 * Which process holds the server side of a loopback TCP connection, read from Linux's /proc: the connection's
 * socket inode from /proc/net/tcp, then the process among the candidates with that socket among its file
 * descriptors. With several cluster workers behind one port, this names the worker that accepted (and so
 * served) a client's connection, without the gateway saying anything about itself.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** `127.0.0.1:<port>` as /proc/net/tcp writes it (address in host byte order on x86, port in hex). */
function loopbackAddress(port: number): string {
  return `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

function socketInode(serverPort: number, clientPort: number): string | undefined {
  const local = loopbackAddress(serverPort);
  const remote = loopbackAddress(clientPort);
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === local && fields[2] === remote) return fields[9];
  }
  return undefined;
}

function holdsSocket(pid: number, inode: string): boolean {
  const target = `socket:[${inode}]`;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** The candidate that holds the server end of the connection from `clientPort` to `serverPort`, if any. */
export function connectionOwner(options: { serverPort: number; clientPort: number; candidates: readonly number[] }): number | undefined {
  const inode = socketInode(options.serverPort, options.clientPort);
  if (inode === undefined) throw new Error(`no connection 127.0.0.1:${options.clientPort} -> 127.0.0.1:${options.serverPort} in /proc/net/tcp`);
  return options.candidates.find((pid) => holdsSocket(pid, inode));
}

/** The pids of a process's direct children. */
export function childProcesses(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) children.push(pid);
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}
