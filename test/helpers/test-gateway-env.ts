/**
 * The environment every test gateway starts with, in process (start-gateway.ts) or as a process of its own
 * (gateway-process.ts): responses validated against the spec, plain plan order, and 127.0.0.1 receivers
 * allowed as trace destinations.
 */
export const TEST_GATEWAY_ENV = {
  PORT: '0',
  SWITCHBOARD_VALIDATE_RESPONSES: 'true',
  // Suites that script failures must see plain plan order; the breaker's own tests turn it on.
  SWITCHBOARD_CIRCUIT_FAILURES: '0',
  // Destinations in tests are receivers on 127.0.0.1: allowed explicitly, as an operator would; the SSRF
  // guard's own tests set it otherwise.
  SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS: 'true',
} as const;

/**
 * For tests of what Redis shares between instances (pins, limit counts, circuits): Redis commands may take
 * 15 s instead of 1 s. On a loaded machine the test process's event loop can stall past a second, a command
 * then counts as timed out, and the gateway works in process for a while by design (failing open): a count
 * or a circuit goes unshared and the test fails. The timeout's own tests (resilience/redis-hung) keep 1 s.
 */
export const PATIENT_REDIS_ENV = { SWITCHBOARD_REDIS_COMMAND_TIMEOUT_MS: '15000' } as const;
