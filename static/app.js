// The little the pages do beyond htmx (no inline script: the CSP allows none).
"use strict";

// The connection banner: shown while the table server cannot be reached (a poll or a form
// got no answer: the network failed or it timed out), gone at the first answer again. The
// polls keep running meanwhile, so the screen catches up by itself; a form that got no
// answer keeps what was typed, and sent again it counts at most once (the server checks the
// game version it was made from).
document.addEventListener("htmx:afterRequest", (event) => {
  const banner = document.getElementById("offline");
  if (banner) {
    banner.hidden = event.detail.xhr.status !== 0;
  }
});

// A screen's live part asks for news (its hx-trigger is "poll") at the pace the server sets
// for the game's state (data-poll, in ms: views.poll_interval), every 30 s while the page is
// hidden, and at once when it shows again. A poll that fails is tried again on the same
// schedule. A swap brings a new live part with its own pace; the timer of the one it
// replaced stops.
const HIDDEN_POLL = 30000;
const pollTimers = new WeakMap();

function schedulePoll(live) {
  clearTimeout(pollTimers.get(live));
  const delay = document.hidden ? HIDDEN_POLL : Number(live.dataset.poll);
  pollTimers.set(live, setTimeout(() => poll(live), delay));
}

function poll(live) {
  if (live.isConnected) {
    htmx.trigger(live, "poll");
    schedulePoll(live);
  }
}

document.addEventListener("htmx:load", (event) => {
  const root = event.target;
  const parts = root.matches("[data-poll]") ? [root] : root.querySelectorAll("[data-poll]");
  parts.forEach(schedulePoll);
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) {
    document.querySelectorAll("[data-poll]").forEach(poll);
  }
});

// A card list that follows a player chosen in the same form (select[data-owner] names that
// player's field): a side sale offers the seller's cards, an exchange each side's own.
function followOwner(cards) {
  const owner = cards.form && cards.form.elements.namedItem(cards.dataset.owner);
  const seat = owner ? owner.value : "";
  for (const group of cards.querySelectorAll("optgroup")) {
    const shown = seat === "" || group.dataset.seat === seat;
    group.hidden = !shown;
    group.disabled = !shown;
  }
  const chosen = cards.selectedOptions[0];
  if (chosen && chosen.parentElement.disabled) {
    cards.value = "";
  }
}

document.addEventListener("change", (event) => {
  const form = event.target.form;
  if (form && event.target.name) {
    form.querySelectorAll(`select[data-owner="${event.target.name}"]`).forEach(followOwner);
  }
});
document.addEventListener("htmx:load", (event) => {
  event.target.querySelectorAll("select[data-owner]").forEach(followOwner);
});

// On the table's reveal grid, the second card chosen reveals the lot: two taps, no third on
// the button (which stays for a browser without script). A correction's form is not sent
// by itself: it has no hx-post.
document.addEventListener("change", (event) => {
  const form = event.target.form;
  if (form && form.matches("form.action-reveal[hx-post]") && event.target.checked &&
      form.querySelectorAll("input[name=cards]:checked").length === 2) {
    form.requestSubmit();
  }
});

// A <details data-keep-open> the reader opened (what is still to come) stays open when a
// poll brings a fresh live part: the same id is opened again in it.
const keptOpen = new Set();
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details.matches && details.matches("details[data-keep-open]")) {
    if (details.open) keptOpen.add(details.id); else keptOpen.delete(details.id);
  }
}, true);
document.addEventListener("htmx:load", () => {
  keptOpen.forEach((id) => {
    const details = document.getElementById(id);
    if (details) details.open = true;
  });
});
