// Paywall bridge: purchase / restore / dismiss / open-link messages to the native host.
// Without a host (plain browser) messages are logged and shown in a toast.
//
// Messages follow the host's strict bridge format (only these fields, nothing else):
//   {type: "capture", event: "<unique id>", body: "<JSON text of the chosen plan>"}
//   {type: "purchase", product: "<product id>"}
//   {type: "restore"}
//   {type: "dismiss"}
//   {type: "open-link", url: "<absolute https URL>"}
(function () {
  "use strict";

  var toastTimer;
  var toastOpen = false;
  function post(message) {
    var handler = window.webkit?.messageHandlers?.larder;
    if (handler) {
      handler.postMessage(message);
      return true;
    }
    console.log("[larder] no native bridge:", message);
    // Messages posted together (a capture and then the purchase) show together.
    var el = document.querySelector(".toast");
    if (!toastOpen) el.textContent = "";
    var line = document.createElement("div");
    line.textContent = JSON.stringify(message);
    el.appendChild(line);
    while (el.childNodes.length > 3) el.removeChild(el.firstChild);
    el.classList.add("is-visible");
    toastOpen = true;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () {
      el.classList.remove("is-visible");
      toastOpen = false;
    }, 2200);
    return false;
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

  var form = document.getElementById("plans");
  var buy = document.querySelector(".purchase");
  var terms = document.getElementById("terms");

  function selected() { return form.querySelector("input[name=plan]:checked"); }

  form.addEventListener("change", function () {
    var plan = selected();
    buy.textContent = plan.dataset.cta;
    terms.textContent = plan.dataset.terms;
  });

  document.addEventListener("click", function (event) {
    var el = event.target.closest("[data-action]");
    if (!el) return;
    var action = el.dataset.action;
    if (action === "purchase") {
      var plan = selected();
      if (!plan || !plan.dataset.product) return;
      capture({ screen: "index.html", answer: plan.value, product: plan.dataset.product });
      post({ type: "purchase", product: plan.dataset.product });
    } else if (action === "restore") {
      post({ type: "restore" });
    } else if (action === "dismiss") {
      post({ type: "dismiss" });
    } else if (action === "open-link") {
      // The markup carries the absolute destination.
      var url = el.dataset.url;
      if (url) post({ type: "open-link", url: url });
    }
  });

  // The host may call this while a purchase is in flight.
  window.larderPaywall = {
    post: post,
    capture: capture,
    setBusy: function (busy) { buy.disabled = !!busy; }
  };
})();
