// Onboarding: the page runtime (larder.js, which the packer adds: "runtime": true in
// larder.json) posts each action to the native host in its strict bridge format. In a plain
// browser (`larder preview`) the runtime logs and simulates, and the toast shows each message.
//
// What each control sends:
//   Continue (a link)      navigate to the next screen's file, then the link is followed
//   Skip                   capture {screen, answer: "dismissed", reason}, then dismiss
//   Start planning (last)  capture {screen, answer: "completed"}, then complete
//   Sign in, Allow         capture {screen, answer: <name>}, then custom <name> {screen}
import { larder } from "../larder.js";

// The current screen, named like navigate names it: the page's file in the bundle.
let screen = location.pathname.split("/").pop() || "index.html";
try { screen = decodeURIComponent(screen); } catch (error) { /* keep it encoded */ }

// A refusal of the host is a bug of this page: say so in the console.
const report = (promise) => promise.catch((error) => console.error("[onboarding]", error.message));

document.addEventListener("click", (event) => {
  const el = event.target.closest("[data-action]");
  if (!el) return;
  const action = el.dataset.action;

  if (action === "navigate") {
    // Tell the host, then let the <a href> navigate inside the bundle.
    const target = el.getAttribute("href");
    if (target) report(larder.navigate(target));
  } else if (action === "dismiss") {
    event.preventDefault();
    report(larder.capture({ screen, answer: "dismissed", reason: el.dataset.reason || "skipped" }));
    report(larder.dismiss());
  } else if (action === "complete") {
    // The end of the flow: record it, then tell the host the user finished.
    event.preventDefault();
    report(larder.capture({ screen, answer: "completed" }));
    report(larder.complete());
  } else if (action === "custom") {
    event.preventDefault();
    const name = el.dataset.name;
    if (!name) return;
    // The user chose this option on this screen: record it, then ask the app to act.
    report(larder.capture({ screen, answer: name }));
    report(larder.custom(name, { screen }));
  }
});

// Without a host: messages posted together (a capture and then its action) show together.
let toastTimer;
let toastOpen = false;
addEventListener("larder:simulated", (event) => {
  const el = document.querySelector(".toast");
  if (!el) return;
  if (!toastOpen) el.textContent = "";
  const line = document.createElement("div");
  line.textContent = JSON.stringify(event.detail);
  el.appendChild(line);
  while (el.childNodes.length > 3) el.removeChild(el.firstChild);
  el.classList.add("is-visible");
  toastOpen = true;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.classList.remove("is-visible");
    toastOpen = false;
  }, 2200);
});
