// Onboarding bridge: posts actions to the native host when one is present.
// In a plain browser the message is only logged and shown in a toast.
//
// Messages follow the host's strict bridge format (only these fields, nothing else):
//   {type: "navigate", screen: "<target file>"}
//   {type: "capture", event: "<unique id>", body: "<JSON text of the answer>"}
//   {type: "dismiss"}
//   {type: "complete"}   (the last screen's button: the flow was finished)
//   {type: "custom", name: "<name>", payload: {screen: "<current file>"}}
(function () {
  "use strict";

  function post(message) {
    var handler = window.webkit?.messageHandlers?.larder;
    if (handler) {
      handler.postMessage(message);
      return true;
    }
    console.log("[larder] no native bridge:", message);
    toast(JSON.stringify(message));
    return false;
  }

  // Messages posted together (a capture and then its action) show together.
  var toastTimer;
  var toastOpen = false;
  function toast(text) {
    var el = document.querySelector(".toast");
    if (!el) return;
    if (!toastOpen) el.textContent = "";
    var line = document.createElement("div");
    line.textContent = text;
    el.appendChild(line);
    while (el.childNodes.length > 3) el.removeChild(el.firstChild);
    el.classList.add("is-visible");
    toastOpen = true;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () {
      el.classList.remove("is-visible");
      toastOpen = false;
    }, 2200);
  }

  // A unique id for each captured answer.
  function eventID() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") {
      return window.crypto.randomUUID();
    }
    return "evt-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  // Records an answer: the body is a JSON string, as the host keeps it byte for byte.
  function capture(answer) {
    post({ type: "capture", event: eventID(), body: JSON.stringify(answer) });
  }

  // The current screen, named like navigate names it: the page's file in the bundle.
  var screen = location.pathname.split("/").pop() || "index.html";
  try { screen = decodeURIComponent(screen); } catch (error) { /* keep it encoded */ }

  document.addEventListener("click", function (event) {
    var el = event.target.closest("[data-action]");
    if (!el) return;
    var action = el.dataset.action;

    if (action === "navigate") {
      // Tell the host, then let the <a href> navigate inside the bundle.
      var target = el.getAttribute("href");
      if (target) post({ type: "navigate", screen: target });
    } else if (action === "dismiss") {
      event.preventDefault();
      capture({ screen: screen, answer: "dismissed", reason: el.dataset.reason || "skipped" });
      post({ type: "dismiss" });
    } else if (action === "complete") {
      // The end of the flow: record it, then tell the host the user finished.
      event.preventDefault();
      capture({ screen: screen, answer: "completed" });
      post({ type: "complete" });
    } else if (action === "custom") {
      event.preventDefault();
      var name = el.dataset.name;
      if (!name) return;
      // The user chose this option on this screen: record it, then ask the app to act.
      capture({ screen: screen, answer: name });
      post({ type: "custom", name: name, payload: { screen: screen } });
    }
  });

  window.larderOnboarding = { post: post, capture: capture };
})();
