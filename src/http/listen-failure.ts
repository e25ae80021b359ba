/**
 * The start-up failure of a listener that cannot bind: which variables chose the address, and what is wrong in
 * words, for the operator (Node's own error names only the syscall and the address).
 */

const REASONS: Record<string, string> = {
  EADDRINUSE: 'another process is listening on that port',
  EACCES: 'not permitted (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine’s',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved',
};

/** An error naming the address, the variables that chose it (`HOST, PORT`) and the reason; the original is its cause. */
export function listenFailure(error: NodeJS.ErrnoException, address: { host: string; port: number }, variables: string): Error {
  const reason = (error.code && REASONS[error.code]) ?? error.message;
  return new Error(`cannot listen on ${address.host}:${address.port} (${variables}): ${reason}`, { cause: error });
}
