// Onboarding bridge: posts actions to the native host when one is present.
// In a plain browser the message is only logged and shown in a toast.
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

  var toastTimer;
  function toast(text) {
    var el = document.querySelector(".toast");
    if (!el) return;
    el.textContent = text;
    el.classList.add("is-visible");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { el.classList.remove("is-visible"); }, 2200);
  }

  var screen = document.body.dataset.screen;

  document.addEventListener("click", function (event) {
    var el = event.target.closest("[data-action]");
    if (!el) return;
    var action = el.dataset.action;

    if (action === "navigate") {
      // Tell the host, then let the <a href> navigate inside the bundle.
      post({ type: "navigate", from: screen, to: el.getAttribute("href") });
    } else if (action === "dismiss") {
      event.preventDefault();
      post({ type: "dismiss", from: screen, reason: el.dataset.reason || "skipped" });
    } else if (action === "custom") {
      event.preventDefault();
      post({ type: "custom", from: screen, name: el.dataset.name });
    }
  });

  window.larderOnboarding = { post: post };
})();
