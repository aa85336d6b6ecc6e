// Types of larder.js, the page's half of Larder's renderer protocol.

/** A JSON value, as the host reads it. */
export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

/** What the host tells the page when it shows it (`visible: true`, with the session) or when
 * the page is hidden (`visible: false`). */
export interface VisibilityDetail {
  visible: boolean;
  session?: string;
  journey?: string;
  revision?: number;
}

/** The events `on` listens to, and what each listener receives. */
export interface LarderEvents {
  visibility: VisibilityDetail;
  reset: Record<string, never>;
  context: { readonly [key: string]: JSONValue };
}

/** A refusal: the host's (bounds, a malformed message), or the runtime's own before sending. */
export declare class LarderError extends Error {
  constructor(message: string);
  readonly name: "LarderError";
}

export interface CaptureOptions {
  /** The event's id (unique; a random UUID when absent). */
  event?: string;
}

export interface Larder {
  /** The presentation's context, as the host gives it (`{}` until it does). */
  readonly context: { readonly [key: string]: JSONValue };
  /** Whether the page is shown. */
  readonly visible: boolean;
  /** The page declares its first screen drawn. */
  ready(): Promise<void>;
  /** Listens to an event; returns a function that stops listening. */
  on<K extends keyof LarderEvents>(kind: K, listener: (detail: LarderEvents[K]) => void): () => void;
  navigate(screen: string): Promise<void>;
  /** Resolves with the event's id. */
  capture(body: string | JSONValue, options?: CaptureOptions): Promise<string>;
  complete(): Promise<void>;
  dismiss(): Promise<void>;
  purchase(product: string): Promise<void>;
  restore(): Promise<void>;
  /** An absolute http, https or mailto URL. */
  openLink(url: string): Promise<void>;
  custom(name: string, payload?: JSONValue): Promise<void>;
  /** `name` matches `^[a-z][a-z0-9_:]*$` (at most 100 characters). Held while hidden;
   * resolves with the event's id once sent. */
  track(name: string, properties?: { [key: string]: string }): Promise<string>;
}

export declare const larder: Larder;
export default larder;
