/** The package's public entry: the typed client and the server's start function. */
export { createSwitchboardClient, type SwitchboardClient } from '#src/client.ts';
export type * from '#src/api-types.ts';
