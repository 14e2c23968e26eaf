// The little the pages do beyond htmx (no inline script: the CSP allows none).
"use strict";

// The connection banner: shown while the table server cannot be reached (a request got no
// answer, or the game's stream was lost and is being opened again), gone at the first
// answer again. The screen catches up by itself meanwhile; a form that got no answer keeps
// what was typed, and sent again it counts at most once (the server checks the game
// version it was made from).
function offline(shown) {
  const banner = document.getElementById("offline");
  if (banner) banner.hidden = !shown;
}

// A stream opened again (every 10 minutes, or after a blip) is told offline only if it
// stays lost LOST_FOR ms; one the server refused is closed, and the screen polls: not
// offline.
const LOST_FOR = 3000;
let lost = 0;  // the timer of a stream being opened again

document.addEventListener("htmx:afterRequest", (event) => {
  offline(event.detail.xhr.status === 0);
});
document.addEventListener("htmx:sseOpen", () => {
  clearTimeout(lost);
  lost = 0;
  offline(false);
});
document.addEventListener("htmx:sseError", (event) => {
  if (event.detail.source.readyState !== EventSource.CONNECTING) {
    clearTimeout(lost);
    lost = 0;
    offline(false);
  } else if (!lost) {
    lost = setTimeout(() => offline(true), LOST_FOR);
  }
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

// A screen's live part comes on its stream at each change of its game (htmx's sse
// extension swaps the `change` event's data into the element that holds the stream and the
// part, which stays: so no event is missed while a new part settles; its id is the game's
// new stamp). It is not
// swapped while a form of the part is being answered (that answer brings the part, and
// swapped before it, the part would lose the form's answer), nor when it is older than the
// part shown (an answer and the stream may cross). A part older than the last change
// heard asks for itself once ("catch-up", a GET of its route), as does one whose stream
// was refused (its 30 s poll) or whose page comes back into view.
// A game's stamps only grow, unless its database was restored from a backup
// (docs/hosting.md): a part older than the part it was asked from (a GET's, or its
// stream's) or than the last one its stream told says so; the page, from before the
// restore, is loaded again.
let heard = 0;  // the latest stamp the stream told

function stampOf(live) {
  return live ? Number(live.dataset.stamp) : 0;
}

function askedFrom(url) {  // the stamp of the part a request or a stream was made from
  return Number(new URL(url, location.href).searchParams.get("v"));
}

function catchUp() {
  const live = document.getElementById("live");
  if (live && stampOf(live) < heard && !live.classList.contains("htmx-request")) {
    htmx.trigger(live, "catch-up");
  }
}

document.addEventListener("htmx:sseBeforeMessage", (event) => {
  const live = document.getElementById("live");
  if (event.detail.type !== "change" || !live) return;
  const stamp = Number(event.detail.lastEventId);
  const opened = askedFrom(event.detail.target.url);  // (the stream's own v)
  if (stamp < Math.max(heard, opened)) {
    event.preventDefault();
    location.reload();
    return;
  }
  heard = stamp;
  if (stamp <= stampOf(live) || live.querySelector(".htmx-request")) event.preventDefault();
});
document.addEventListener("htmx:confirm", (event) => {
  // While a form of the part is being answered, the part asks nothing (its answer brings
  // it, and a later change, catch-up).
  const live = document.getElementById("live");
  if (event.detail.elt === live && live.querySelector(".htmx-request")) event.preventDefault();
});
document.addEventListener("htmx:beforeSwap", (event) => {
  const live = document.getElementById("live");
  if (event.detail.elt !== live || event.detail.requestConfig.verb !== "get") return;
  const found = /<div id="live"[^>]*?data-stamp="(\d+)"/.exec(event.detail.serverResponse);
  if (found && Number(found[1]) < askedFrom(event.detail.pathInfo.requestPath)) {
    event.detail.shouldSwap = false;
    location.reload();
  } else if (found && Number(found[1]) < stampOf(live)) {
    event.detail.shouldSwap = false;
  }
});
// (after an answer or a part from the stream only: a part that failed is asked again by
// its 30 s poll, not at once)
document.addEventListener("htmx:afterSettle", (event) => {
  const target = event.detail.target;  // (none for a part from the stream)
  if (!target || target.id !== "flash") catchUp();
});
document.addEventListener("htmx:afterRequest", (event) => {
  const status = event.detail.xhr.status;
  if (event.detail.elt.id === "live" && (status === 200 || status === 204)) {
    setTimeout(catchUp);  // (once htmx-request is off)
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

// What the reader set on a live part stays when a fresh one is swapped in: a <details
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

// A finished game's result as text (its textarea in .share): through the browser's share
// sheet where it has one, else copied with a tap (the status says so). Without either
// (plain HTTP allows neither API), the copy button selects the text and copies it the old
// way; the text stays there to select by hand.
function shareReady(root) {
  root.querySelectorAll(".share").forEach((box) => {
    box.querySelector(".share-button").hidden = !navigator.share;
    box.querySelector(".copy-button").hidden = Boolean(navigator.share);
  });
}

async function copied(box, text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return true;
  }
  const area = box.querySelector("textarea");
  box.querySelector("details").open = true;
  area.select();
  return document.execCommand("copy");
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest(".share-button, .copy-button");
  if (!button) return;
  const box = button.closest(".share");
  const text = box.querySelector("textarea").value.trim();
  const status = box.querySelector(".share-status");
  if (button.matches(".share-button")) {
    try {
      await navigator.share({text});
    } catch (error) {
      // (the reader closed the share sheet: nothing to say)
    }
    return;
  }
  status.textContent = "";
  try {
    if (await copied(box, text)) status.textContent = status.dataset.copied;
  } catch (error) {
    // (the text stays selected, to copy by hand)
  }
});
document.addEventListener("DOMContentLoaded", () => shareReady(document));
document.addEventListener("htmx:load", (event) => shareReady(event.target));
