// The little the pages do beyond htmx (no inline script: the CSP allows none).
"use strict";

// The connection banner: shown while the table server cannot be reached (the stream was
// lost, a poll or a form got no answer: the network failed or it timed out), gone at the
// first answer again. The stream is opened again (or the polls keep running) meanwhile, so
// the screen catches up by itself; a form that got no
// answer keeps what was typed, and sent again it counts at most once (the server checks the
// game version it was made from).
function offline(shown) {
  const banner = document.getElementById("offline");
  if (banner) banner.hidden = !shown;
}

document.addEventListener("htmx:afterRequest", (event) => {
  offline(event.detail.xhr.status === 0);
});

// The answer to a form is seen where it is read: a message for this device (a change another
// device made first, a refusal), else the payment it brought, is scrolled into sight if it
// landed out of it.
document.addEventListener("htmx:afterSettle", (event) => {
  const config = event.detail.requestConfig;
  if (!config || config.verb !== "post") return;
  const flashed = event.detail.xhr.getResponseHeader("HX-Retarget") === "#flash";
  const shown = document.querySelector(flashed ? "#flash .error" : "#live .note, #live .error") ||
    document.querySelector("#payment .payment");
  if (shown) {
    const box = shown.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      shown.scrollIntoView({block: "center"});
    }
  }
});

// A screen's live part hears of its game's changes on a stream (server-sent events): the
// server sends the new part as it happens, on one connection, with no question per change
// (the part's hx-get, at /live/events), and a beat every 10 s while nothing happens. An
// event older than the part shown is left; one that comes while a form of the part is
// being sent waits for its answer (which may be newer). A lost stream is opened again by
// the browser a second later from the last part it showed (Last-Event-ID), the banner
// shown meanwhile; one silent for SILENT ms (a connection lost without a word, a phone
// waking up) is opened again from the part shown. A browser without EventSource, or a
// server that refuses the stream (204 where it holds none, an error), has the part poll
// instead, as below; the stream is tried again at a new part, once REFUSED_FOR ms passed.
const SILENT = 25000;
const REFUSED_FOR = 30000;
let stream = null;  // the page's: its EventSource, when it was last heard of, its timer,
// when it was refused (0: not), an event waiting for a form's answer

function stampOf(live) {
  return Number(new URL(live.getAttribute("hx-get"), location.href).searchParams.get("v"));
}

function listen(live) {
  if (!window.EventSource) return false;
  if (stream && stream.refused) {
    if (Date.now() - stream.refused < REFUSED_FOR) return false;
    stream = null;
  }
  if (!stream) openStream(live);
  return true;
}

function openStream(live) {
  const source = new EventSource(live.getAttribute("hx-get").replace("/live?", "/live/events?"));
  const opened = {source: source, heard: Date.now(), timer: 0, refused: 0, waiting: null};
  const heard = () => {
    opened.heard = Date.now();
    offline(false);
    clearTimeout(opened.timer);
    opened.timer = setTimeout(() => reopen(opened), SILENT);
  };
  source.addEventListener("open", heard);
  source.addEventListener("beat", heard);
  source.addEventListener("message", (event) => {
    heard();
    opened.waiting = {html: event.data, stamp: Number(event.lastEventId)};
    showWaiting();
  });
  source.addEventListener("error", () => {
    if (source.readyState !== EventSource.CLOSED) {
      offline(true);
      return;
    }
    clearTimeout(opened.timer);
    opened.refused = Date.now();
    document.querySelectorAll("[data-poll]").forEach((part) => schedulePoll(part, 0));
  });
  stream = opened;
  heard();
}

function reopen(silent) {
  if (stream !== silent) return;
  silent.source.close();
  clearTimeout(silent.timer);
  stream = null;
  const live = document.getElementById("live");
  if (live) listen(live);
}

function showWaiting() {
  const shown = document.getElementById("live");
  const event = stream && stream.waiting;
  if (!event || !shown || shown.querySelector(".htmx-request")) return;
  stream.waiting = null;
  if (stampOf(shown) < event.stamp) htmx.swap(shown, event.html, {swapStyle: "outerHTML"});
}

function streaming() {
  return stream !== null && !stream.refused;
}

document.addEventListener("htmx:afterRequest", showWaiting);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden && streaming() && Date.now() - stream.heard > SILENT) reopen(stream);
});

// Without a stream, a screen's live part asks for news (its hx-trigger is "poll"). The
// server holds the question until the game moves, then answers with the new part at once,
// or after some 20 s with a 204 (nothing new): the part asks again at once. A server that answers at
// once (one that cannot hold) is asked again data-poll ms after the last question (the
// pace it sets for the game's state: views.poll_interval). While the page is hidden, it
// asks every 30 s; shown again, at once. A question that failed, or had no answer within
// 45 s (hx-request's timeout), is asked again after data-poll ms, with the banner shown,
// and asks to be answered at once ("now"), so that the banner goes as soon as the server
// is back.
const HIDDEN_POLL = 30000;
const polls = new WeakMap();  // a live part: its timer, when it last asked, whether it waits

function pollState(live) {
  if (!polls.has(live)) polls.set(live, {timer: 0, asked: 0, waiting: false, failed: false});
  return polls.get(live);
}

function schedulePoll(live, delay) {
  const state = pollState(live);
  clearTimeout(state.timer);
  state.timer = setTimeout(() => poll(live), document.hidden ? HIDDEN_POLL : delay);
}

function poll(live) {
  const state = pollState(live);
  if (!live.isConnected || state.waiting || streaming()) return;
  clearTimeout(state.timer);
  state.waiting = true;
  state.asked = Date.now();
  htmx.trigger(live, "poll");
}

document.addEventListener("htmx:afterRequest", (event) => {
  const live = event.detail.elt;
  if (!polls.has(live) || !live.matches("[data-poll]")) return;
  const state = pollState(live);
  state.waiting = false;
  state.failed = !event.detail.successful;
  const pace = Number(live.dataset.poll);
  schedulePoll(live, event.detail.successful ? Math.max(0, pace - (Date.now() - state.asked))
                                             : pace);
});
document.addEventListener("htmx:configRequest", (event) => {
  const live = event.detail.elt;
  if (polls.has(live) && pollState(live).failed) event.detail.parameters.now = "1";
});
document.addEventListener("htmx:load", (event) => {
  const root = event.target;
  const parts = root.matches("[data-poll]") ? [root] : root.querySelectorAll("[data-poll]");
  parts.forEach((live) => {
    if (!listen(live)) schedulePoll(live, 0);
  });
  showWaiting();  // (a form's answer came: an event that waited for it, if newer)
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) {
    document.querySelectorAll("[data-poll]").forEach(poll);
  }
});

// A card list that follows a player chosen in the same form ([data-owner] names that
// player's field): a side sale offers the seller's cards, an exchange each side's own, an
// overbid the discards of the one who overbid. A select holds only that player's cards (a
// phone's picker may show hidden ones); in a list of cards to tap, grouped by holder, the
// others are hidden, and a card tapped first chooses its holder in that field.
const cardGroups = new WeakMap();  // a select: every player's group of cards, as drawn

function followOwner(cards) {
  const owner = cards.form && cards.form.elements.namedItem(cards.dataset.owner);
  const seat = owner ? owner.value : "";
  const follows = (group) => seat === "" || group.dataset.seat === seat;
  if (cards.matches("select")) {
    if (!cardGroups.has(cards)) cardGroups.set(cards, [...cards.querySelectorAll("optgroup")]);
    const chosen = cards.value;
    cards.querySelectorAll("optgroup").forEach((group) => group.remove());
    cards.append(...cardGroups.get(cards).filter(follows));
    cards.value = [...cards.options].some((option) => option.value === chosen) ? chosen : "";
    return;
  }
  for (const group of cards.querySelectorAll("[data-seat]")) {
    group.hidden = !follows(group);
    if (group.hidden) {
      group.querySelectorAll("input:checked").forEach((card) => { card.checked = false; });
    }
  }
}

document.addEventListener("change", (event) => {
  const form = event.target.form;
  const holder = event.target.closest("[data-owner] [data-seat]");
  if (holder) {
    const cards = holder.closest("[data-owner]");
    const owner = form.elements.namedItem(cards.dataset.owner);
    if (owner) {
      owner.value = holder.dataset.seat;
      followOwner(cards);
    }
  } else if (form && event.target.name) {
    form.querySelectorAll(`[data-owner="${event.target.name}"]`).forEach(followOwner);
  }
});
document.addEventListener("htmx:load", (event) => {
  event.target.querySelectorAll("[data-owner]").forEach(followOwner);
});

// On the table, a step's last choice records it: the second card of the reveal grid reveals
// the lot (two taps), the player of a penalty books it. Their buttons stay for a browser
// without script. A correction's form is not sent by itself: it has no hx-post.
function complete(form) {
  const cards = form.querySelectorAll("input[name=cards]:checked").length;
  return form.matches(".action-penalty") || (form.matches(".action-reveal") && cards === 2);
}

document.addEventListener("change", (event) => {
  const form = event.target.form;
  if (form && form.matches("form.action[hx-post]") && event.target.checked && complete(form)) {
    form.requestSubmit();
  }
});

// What the reader set on a live part stays when a poll brings a fresh one: a <details
// data-keep-open> opened (what is still to come) is opened again, and a phone's coins and
// cards stay hidden (a class of the page's body, which no poll replaces, so they never
// show in between).
const keptOpen = new Set();
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (details.matches && details.matches("details[data-keep-open]")) {
    if (details.open) keptOpen.add(details.id); else keptOpen.delete(details.id);
  }
}, true);
document.addEventListener("change", (event) => {
  if (event.target.id === "hide-mine") {
    document.body.classList.toggle("hiding", event.target.checked);
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = (event.target.checked ? "hiding=1; path=/; SameSite=Strict"
                                            : "hiding=; path=/; SameSite=Strict; max-age=0") + secure;
  }
});
document.addEventListener("htmx:load", () => {
  keptOpen.forEach((id) => {
    const details = document.getElementById(id);
    if (details) details.open = true;
  });
  const hide = document.getElementById("hide-mine");
  if (hide) hide.checked = document.body.classList.contains("hiding");
});
