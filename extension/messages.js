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

  RW.messages = { ADDRESSES, listen, send, withTimeout, errorText };
})();
