// @ts-check
// Small helpers to build the page's elements and speak to screen readers.

/** Builds an element: `h("button", {class: "x", onclick}, "text", child)`.
 * @param {string} tag @param {Record<string, any>} [attrs] @param {...(Node | string | null | undefined | false)} children */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Says something to a screen reader without moving its focus. @param {string} text */
export function announce(text) {
  const el = /** @type {HTMLElement} */ (document.getElementById("announcer"));
  el.textContent = "";
  // A fresh text node after a tick: the same sentence twice is still read twice.
  setTimeout(() => (el.textContent = text), 30);
}

/** The main area, emptied. */
export function mainArea() {
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  main.replaceChildren();
  return main;
}
