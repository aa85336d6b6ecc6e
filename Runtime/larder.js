// larder.js: the page's half of Larder's renderer protocol. A dependency-free ES module.
//
//   import { larder } from "./larder.js";
//   larder.ready();                                  // the first screen is drawn
//   larder.on("visibility", ({ visible }) => ...);   // shown (with the session) or hidden
//   await larder.purchase("com.example.plus");       // rejects with the host's refusal
//
// Every action posts one message in the host's strict bridge format to
// window.webkit.messageHandlers.larder and returns a promise that rejects (a LarderError) with
// the host's refusal. Without a host (a plain browser) messages are logged, dispatched as a
// `larder:simulated` event on window, and resolve.
const page = globalThis;
const doc = page.document;
const NAME = /^[a-z][a-z0-9_:]*$/;
const kinds = ["visibility", "reset", "context"];

/** A refusal: a message the host refused, or an argument the runtime refused before sending. */
export class LarderError extends Error {
  constructor(message) {
    super(message);
    this.name = "LarderError";
  }
}

const handler = () => {
  const webkit = page.webkit;
  return webkit && webkit.messageHandlers && webkit.messageHandlers.larder;
};

const refusal = (error) => new LarderError(String((error && error.message) || error || "refused by the host"));

/** Posts `message` to the host, or simulates it outside one. */
function send(message) {
  const bridge = handler();
  if (!bridge) {
    console.info("[larder] no host; simulated:", JSON.stringify(message));
    page.dispatchEvent(new CustomEvent("larder:simulated", { detail: message }));
    return Promise.resolve();
  }
  try {
    return Promise.resolve(bridge.postMessage(message)).then(() => undefined, (error) => { throw refusal(error); });
  } catch (error) {
    return Promise.reject(refusal(error));
  }
}

const refuse = (message) => Promise.reject(new LarderError(message));
const text = (value) => typeof value === "string" && value.length > 0;

/** A unique id for a captured event. */
function eventID() {
  const crypto = page.crypto;
  if (crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return "evt-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
}

// Visibility: hidden while the host prepares the page, shown on `larder:visibility`.
let visible = doc.visibilityState === "visible";
const held = [];
const listeners = new Map(kinds.map((kind) => [kind, new Set()]));

function emit(kind, detail) {
  for (const listener of [...listeners.get(kind)]) {
    try { listener(detail); } catch (error) { setTimeout(() => { throw error; }, 0); }
  }
}

function setVisible(now, detail) {
  const changed = now !== visible;
  visible = now;
  if (now) release();
  if (changed || detail.session) emit("visibility", detail);
}

/** Sends the analytics held while the page was hidden, in order. */
function release() {
  while (visible && held.length > 0) {
    const { message, settle } = held.shift();
    settle(send(message));
  }
}

doc.addEventListener("larder:visibility", (event) => {
  const detail = Object.assign({ visible: true }, event.detail);
  setVisible(detail.visible !== false, detail);
});
// With a host, a show is announced by `larder:visibility` (with the session); the document's
// own change still releases held analytics, and says when the page was hidden.
doc.addEventListener("visibilitychange", () => {
  const now = doc.visibilityState === "visible";
  if (now && handler()) {
    visible = true;
    release();
  } else {
    setVisible(now, { visible: now });
  }
});
doc.addEventListener("larder:context", (event) => emit("context", event.detail));
doc.addEventListener("larder:reset", () => emit("reset", {}));

/** The page runtime. */
export const larder = {
  /** The presentation's context, as the host gives it (`{}` until it does). */
  get context() {
    const host = page.larder;
    return (host && typeof host === "object" && host.context) || {};
  },

  /** Whether the page is shown. */
  get visible() { return visible; },

  /** The page declares its first screen drawn: a renderer whose bundle lists the `ready`
   * capability waits for this (within its deadline) before it reports the page ready. */
  ready() {
    doc.documentElement.setAttribute("data-larder-ready", "");
    doc.dispatchEvent(new Event("larder:ready"));
    return Promise.resolve();
  },

  /** Listens to `visibility`, `reset` or `context`; returns a function that stops listening. */
  on(kind, listener) {
    const set = listeners.get(kind);
    if (!set) throw new LarderError("unknown event '" + kind + "': use one of " + kinds.join(", "));
    if (typeof listener !== "function") throw new LarderError("the listener of '" + kind + "' must be a function");
    set.add(listener);
    return () => set.delete(listener);
  },

  /** The page moves to `screen` (its file in the bundle). */
  navigate(screen) {
    return text(screen) ? send({ type: "navigate", screen }) : refuse("navigate needs a non-empty screen");
  },

  /** Captures an answer: `body` (JSON text, or a value sent as its JSON text), kept byte for
   * byte by the host. Resolves with the event's id. */
  capture(body, options) {
    const json = typeof body === "string" ? body : JSON.stringify(body);
    if (typeof json !== "string") return refuse("capture needs a body that has a JSON form");
    const event = (options && options.event) || eventID();
    if (!text(event)) return refuse("capture needs a non-empty event id");
    return send({ type: "capture", event, body: json }).then(() => event);
  },

  /** The user reached the end of the flow (outcome: completed). */
  complete() { return send({ type: "complete" }); },

  /** The user closes the flow before its end (outcome: dismissed). */
  dismiss() { return send({ type: "dismiss" }); },

  /** Asks the app to buy `product`. */
  purchase(product) {
    return text(product) ? send({ type: "purchase", product }) : refuse("purchase needs a non-empty product id");
  },

  /** Asks the app to restore purchases. */
  restore() { return send({ type: "restore" }); },

  /** Asks the app to open an absolute http, https or mailto URL. */
  openLink(url) {
    return text(url) ? send({ type: "open-link", url: String(url) }) : refuse("openLink needs an absolute URL");
  },

  /** An app-defined message with a JSON payload (null when none). */
  custom(name, payload) {
    if (!text(name)) return refuse("custom needs a non-empty name");
    return send({ type: "custom", name, payload: payload === undefined ? null : payload });
  },

  /** Presentation analytics: an event `name` (`^[a-z][a-z0-9_:]*$`, at most 100 characters)
   * with string properties, captured like the app's own `track`. Held while the page is
   * hidden (prepared ahead) and sent when it is first shown. Resolves with the event's id. */
  track(name, properties) {
    if (typeof name !== "string" || name.length > 100 || !NAME.test(name)) {
      return refuse("'" + name + "' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most 100)");
    }
    const values = properties || {};
    for (const key of Object.keys(values)) {
      if (typeof values[key] !== "string") return refuse("property '" + key + "' of event '" + name + "' must be a string");
    }
    const event = "track/" + eventID();
    const message = { type: "capture", event, body: JSON.stringify({ name, properties: values, type: "track" }) };
    if (visible) return send(message).then(() => event);
    return new Promise((resolve) => held.push({ message, settle: resolve })).then(() => event);
  },
};

export default larder;
