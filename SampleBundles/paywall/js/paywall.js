// Paywall bridge: purchase / restore / dismiss / open-link messages to the native host.
// Without a host (plain browser) messages are logged and shown in a toast.
(function () {
  "use strict";

  var toastTimer;
  function post(message) {
    var handler = window.webkit?.messageHandlers?.larder;
    if (handler) {
      handler.postMessage(message);
      return true;
    }
    console.log("[larder] no native bridge:", message);
    var el = document.querySelector(".toast");
    el.textContent = JSON.stringify(message);
    el.classList.add("is-visible");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { el.classList.remove("is-visible"); }, 2200);
    return false;
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
      post({ type: "purchase", plan: plan.value, productId: plan.dataset.product });
    } else if (action === "restore") {
      post({ type: "restore" });
    } else if (action === "dismiss") {
      post({ type: "dismiss", reason: "closed" });
    } else if (action === "open-link") {
      // Named link; the host maps it to a real destination.
      post({ type: "open-link", link: el.dataset.link });
    }
  });

  // The host may call this while a purchase is in flight.
  window.larderPaywall = {
    post: post,
    setBusy: function (busy) { buy.disabled = !!busy; }
  };
})();
