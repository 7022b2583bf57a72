// The extension's one message envelope. A request is {to, cmd, ...fields} with `to` one of ADDRESSES; the reply
// is {value} or {error} (a message string). Every context serves its address with listen() and asks with
// send(), which unwraps the reply and never waits forever (withTimeout). A classic script, so the content
// scripts and offscreen.html load it as they load safe_dom.js; the module service worker imports it for its
// side effect and reads globalThis.__readwell.messages.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.messages) return;

  /** Who serves what: the service worker (commands, engine broker, saving), the offscreen document (the
   * engine, saved-HTML builder) and the content script of a tab (snapshot, reader, overlay). */
  const ADDRESSES = Object.freeze({ sw: 'sw', offscreen: 'offscreen', content: 'content' });

  const errorText = (err) => String((err && err.message) || err);

  /** `promise`, or a rejection after `ms` naming `what`; the timer is cleared either way. */
  function withTimeout(promise, ms, what) {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`readwell: ${what} timed out after ${ms} ms`)), ms);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  /** Serve requests addressed to `to`: handlers[cmd](msg, sender) may return a value or a promise; the sender
   * gets {value} or {error}. Requests for other addresses or unknown commands are left to other listeners. */
  function listen(to, handlers) {
    const listener = (msg, sender, sendResponse) => {
      if (!msg || msg.to !== to || !Object.hasOwn(handlers, msg.cmd)) return false;
      Promise.resolve()
        .then(() => handlers[msg.cmd](msg, sender))
        .then((value) => sendResponse({ value }), (err) => sendResponse({ error: errorText(err) }));
      return true; // the reply comes asynchronously
    };
    chrome.runtime.onMessage.addListener(listener);
    return listener;
  }

  /** Raised for a missing reply (the receiver went away mid-request); err.noReply is true. */
  function noReply(to) {
    const err = new Error(`readwell: no reply from ${to}`);
    err.noReply = true;
    return err;
  }

  /** Ask `to` to run `cmd` with `fields`: resolves with the reply's value, rejects with its error. A tab's
   * content script is reached with {tabId}; everything else through the runtime. */
  async function send(to, cmd, fields = {}, { tabId = null, timeoutMs = 90000 } = {}) {
    const msg = { ...fields, to, cmd };
    const sent = tabId === null ? chrome.runtime.sendMessage(msg) : chrome.tabs.sendMessage(tabId, msg);
    const reply = await withTimeout(sent, timeoutMs, `${to} ${cmd}`);
    if (!reply) throw noReply(to);
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.value;
  }

  /** Serve requests that come over long-lived ports named `to` (see portClient): the same handlers and
   * replies as listen(), each reply tagged with its request's id. Each new port first gets a hello whose
   * `bytes` is a Uint8Array: it arrives as one only where the browser serializes messages by structured clone
   * (manifest "message_serialization", Chrome 148+), as a plain object under JSON serialization. */
  function servePorts(to, handlers) {
    const listener = (port) => {
      if (port.name !== to) return;
      // first message on every port: tells the client whether binary data arrives as binary (request.binary)
      try { port.postMessage({ hello: true, bytes: new Uint8Array(1) }); } catch { /* closed already */ }
      port.onMessage.addListener((msg) => {
        if (!msg || !Object.hasOwn(handlers, msg.cmd)) {
          port.postMessage({ id: msg && msg.id, error: `readwell: ${to} has no command ${msg && msg.cmd}` });
          return;
        }
        Promise.resolve()
          .then(() => handlers[msg.cmd](msg, port.sender))
          .then((value) => port.postMessage({ id: msg.id, value }),
            (err) => port.postMessage({ id: msg.id, error: errorText(err) }))
          .catch(() => {}); // the asker went away (tab closed or navigated): nobody to tell
      });
    };
    chrome.runtime.onConnect.addListener(listener);
    return listener;
  }

  /** A requester over one long-lived port to the extension context that serves `to` with servePorts: what
   * send() does, without opening a new message channel per request (chrome.runtime.sendMessage does that,
   * and offers the message to every extension context, the service worker included: for the content
   * script's 100-200 KB snapshot that was most of the time it took to reach the engine). The port is opened
   * on first use and again after it closed; when nothing serves it (or it closes mid-request) the request
   * rejects with err.noReply, as send() does. Returns request(cmd, fields, { timeoutMs }), with
   * request.connect() (open the port now: the connection is set up while the caller works, e.g. while the page
   * is serialized) and request.binary(): null until the served side's hello has been read (it waits behind the
   * caller's synchronous work), then true when it arrived as binary (a Uint8Array in a request then reaches the
   * other side as a Uint8Array, not as an object of numbered keys), false under JSON serialization. */
  function portClient(to) {
    let port = null;
    let nextId = 1;
    let binary = null;
    const pending = new Map();
    const open = () => {
      const p = chrome.runtime.connect({ name: to });
      p.onMessage.addListener((reply) => {
        if (reply && reply.hello === true && reply.id === undefined) {
          if (port === p) binary = reply.bytes instanceof Uint8Array;
          return;
        }
        const waiter = reply && pending.get(reply.id);
        if (!waiter) return;
        pending.delete(reply.id);
        if (reply.error !== undefined) waiter.reject(new Error(reply.error));
        else waiter.resolve(reply.value);
      });
      p.onDisconnect.addListener(() => {
        void chrome.runtime.lastError; // "receiving end does not exist": reported as noReply below
        if (port === p) { port = null; binary = null; }
        for (const [id, waiter] of pending) {
          if (waiter.port === p) { pending.delete(id); waiter.reject(noReply(to)); }
        }
      });
      return p;
    };
    function request(cmd, fields = {}, { timeoutMs = 90000 } = {}) {
      port = port || open();
      const id = nextId++;
      const p = port;
      const reply = new Promise((resolve, reject) => { pending.set(id, { resolve, reject, port: p }); });
      try {
        p.postMessage({ ...fields, id, cmd });
      } catch { // the port closed between its last use and now
        pending.delete(id);
        if (port === p) { port = null; binary = null; }
        return Promise.reject(noReply(to));
      }
      return withTimeout(reply, timeoutMs, `${to} ${cmd}`).finally(() => pending.delete(id));
    }
    request.connect = () => {
      try { port = port || open(); } catch { /* no extension context (reloaded): the request reports it */ }
    };
    request.binary = () => (port === null ? null : binary);
    return request;
  }

  RW.messages = { ADDRESSES, listen, send, withTimeout, errorText, servePorts, portClient };
})();
