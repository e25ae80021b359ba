/**
 * Request and response classes for node:http whose instances are born with the express application's own
 * prototypes. Express gives every request and response its prototypes in `app.handle` with
 * `Object.setPrototypeOf`, and to V8 a prototype change is a map transition run per object: about 2% of the
 * gateway's instructions per `POST /messages` (callgrind, 2026-11-26), and every request object left on a map
 * its constructor never built. An object that already has the prototype it is given is left as it is, so with
 * these classes express's call does nothing. Each instance is still built by node's own constructor
 * (`Reflect.construct` with these classes as `new.target`), so it is the request or response node would
 * have made, with express's methods one step up its chain as before.
 */
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

const http = process.getBuiltinModule('node:http');

/** The `IncomingMessage` and `ServerResponse` options of `createServer` for `app`. */
export function expressMessageClasses(app: Express): Required<Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>> {
  function ExpressRequest(socket: Socket): IncomingMessage {
    return Reflect.construct(http.IncomingMessage, [socket], ExpressRequest) as IncomingMessage;
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(req: IncomingMessage, options?: unknown): ServerResponse {
    return Reflect.construct(http.ServerResponse, [req, options], ExpressResponse) as ServerResponse;
  }
  ExpressResponse.prototype = app.response;
  return {
    IncomingMessage: ExpressRequest as unknown as typeof IncomingMessage,
    ServerResponse: ExpressResponse as unknown as typeof ServerResponse,
  };
}
