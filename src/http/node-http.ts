/**
 * `node:http`'s functions, taken from the built-in module object rather than through an ES module import.
 * Importing `node:http` as an ES module builds a namespace of all its exports, which evaluates its lazy
 * `WebSocket` and `MessageEvent` getters and so loads Node's bundled undici: about 13 MB of RSS (Node 24.21)
 * for a gateway that never uses either. Types still come from `import type … from 'node:http'`.
 */
const http = process.getBuiltinModule('node:http');

/** `http.createServer`, `http.request` and `http.maxHeaderSize`. */
export const { createServer, request, maxHeaderSize } = http;
