// workerd entry (build/edge/workerd.capnp): the engine's files arrive as modules of the worker (assets.mjs,
// written by build_edge.mjs: wasm modules precompiled by workerd, data modules as ArrayBuffers), so nothing is
// compiled from bytes and nothing is fetched. The engine loads inside the first request that needs it:
// workerd allows no I/O or timers at global scope.
import { files, wasmModule, adapters } from './assets.mjs';
import { createEdgeEngine } from './engine.mjs';
import { allowPrivateFrom, createHandler, limitsFrom } from './handler.mjs';

let handler = null;
// A rejection nobody handled (the wart engine.mjs fixes was one) is counted, logged and shown in /healthz.
let rejections = 0;
addEventListener('unhandledrejection', (event) => {
  rejections += 1;
  const reason = event.reason && event.reason.stack ? event.reason.stack : event.reason;
  console.error('readwell edge: unhandled rejection:', String(reason).slice(0, 500));
});

export default {
  fetch(request, env) {
    handler ??= createHandler(() => createEdgeEngine({ files, wasmModule, adapters }), {
      token: env && env.READWELL_TOKEN ? String(env.READWELL_TOKEN) : undefined,
      limits: limitsFrom((name) => env && env[name]),
      allowPrivate: allowPrivateFrom((name) => env && env[name]),
      health: () => ({ unhandled_rejections: rejections }),
    });
    return handler.fetch(request);
  },
};
