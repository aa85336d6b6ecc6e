// Paywall: draws its plans (its first screen is drawn by script, so it declares it ready:
// larder.json lists the "ready" capability and the renderer waits for larder.ready()), then
// posts purchase / restore / dismiss / open-link through the page runtime (larder.js, which
// the packer adds). Its analytics ("paywall:viewed", "paywall:plan_selected") are held while
// the paywall is prepared hidden and sent when it is shown. In a plain browser (`larder
// preview`) the runtime logs and simulates, and the toast shows each message.
//
// What each control sends:
//   the plan's button   capture {screen, answer: <plan>, product}, then purchase <product>
//   Restore purchases   restore
//   ×                   dismiss
//   Terms, Privacy      open-link <the button's data-url>
import { larder } from "../larder.js";

const plans = [
  {
    value: "annual", product: "com.example.sprout.plus.annual", name: "Annual", note: "7-day free trial",
    price: "$39.99", per: "$3.33 / month", badge: "SAVE 33%",
    cta: "Start 7-day free trial", terms: "7 days free, then $39.99 per year. Cancel anytime.",
  },
  {
    value: "monthly", product: "com.example.sprout.plus.monthly", name: "Monthly", note: "Flexible, billed monthly",
    price: "$4.99", per: "per month",
    cta: "Subscribe for $4.99 / month", terms: "$4.99 per month. Cancel anytime.",
  },
];

/** `<tag class="className">` holding `children` (elements or text). */
function element(tag, className, ...children) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  el.append(...children);
  return el;
}

const form = document.getElementById("plans");
const fieldset = form.querySelector(".plans");
plans.forEach((plan, index) => {
  const input = element("input");
  Object.assign(input, { type: "radio", name: "plan", value: plan.value, checked: index === 0 });
  Object.assign(input.dataset, { product: plan.product, cta: plan.cta, terms: plan.terms });
  const price = element("span", "plan-price", plan.price, element("small", "", plan.per));
  const card = element("span", "plan-card", element("span", "", element("span", "plan-name", plan.name), element("span", "plan-note", plan.note)), price);
  const label = element("label", "plan", input, card);
  if (plan.badge) label.append(element("span", "badge", plan.badge));
  fieldset.append(label);
});
larder.ready();

const buy = document.querySelector(".purchase");
const terms = document.getElementById("terms");
const selected = () => form.querySelector("input[name=plan]:checked");
const report = (promise) => promise.catch((error) => console.error("[paywall]", error.message));

// Held while the paywall is prepared hidden; sent when it is first shown.
report(larder.track("paywall:viewed", { plan: selected().value }));

form.addEventListener("change", () => {
  const plan = selected();
  buy.textContent = plan.dataset.cta;
  terms.textContent = plan.dataset.terms;
  report(larder.track("paywall:plan_selected", { plan: plan.value }));
});

document.addEventListener("click", (event) => {
  const el = event.target.closest("[data-action]");
  if (!el) return;
  const action = el.dataset.action;
  if (action === "purchase") {
    const plan = selected();
    if (!plan || !plan.dataset.product) return;
    report(larder.capture({ screen: "index.html", answer: plan.value, product: plan.dataset.product }));
    report(larder.purchase(plan.dataset.product));
  } else if (action === "restore") {
    report(larder.restore());
  } else if (action === "dismiss") {
    report(larder.dismiss());
  } else if (action === "open-link") {
    // The markup carries the absolute destination.
    const url = el.dataset.url;
    if (url) report(larder.openLink(url));
  }
});

// The host tells the page when a purchase is in flight (a `larder:message` with `busy`).
addEventListener("larder:message", (event) => {
  if (event.detail && "busy" in event.detail) buy.disabled = !!event.detail.busy;
});

// Without a host: messages posted together (a capture and then the purchase) show together.
let toastTimer;
let toastOpen = false;
addEventListener("larder:simulated", (event) => {
  const el = document.querySelector(".toast");
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
