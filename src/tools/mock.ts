/**
 * `npm run mock`: serves the partners' mock with Prism on 127.0.0.1 at the same URLs as the gateway
 * (`/api/v1/...`), from generated/openapi.mock.yaml. Port from `--port` or MOCK_PORT (default 4010).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const portFlag = process.argv.indexOf('--port');
const port = portFlag > 0 ? process.argv[portFlag + 1] : (process.env.MOCK_PORT ?? '4010');
const host = process.env.MOCK_HOST ?? '127.0.0.1';

const prism = spawn(
  process.execPath,
  ['node_modules/@stoplight/prism-cli/dist/index.js', 'mock', 'generated/openapi.mock.yaml', '--host', host, '--port', String(port)],
  { cwd: root, stdio: 'inherit' },
);
const stop = () => prism.kill('SIGTERM');
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
prism.on('exit', (code) => process.exit(code ?? 0));
