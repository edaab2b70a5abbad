// Whose turn, outside the page (issue 41 item 6): the tab's title and icon say when it is this
// player's turn (and go back when it is not), an optional sound (off until the player turns it
// on) and a browser notification while the tab is in the background, where the player allowed
// it (permission is asked only from a click on "Notify me").
import { h } from "./dom.js";

const SOUND_KEY = "gh.turnSound";
const NOTIFY_KEY = "gh.turnNotify";
const store = window.localStorage;

// The page's icon with a red badge: the tab says "your turn" even when its title is cut short.
const TURN_ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#3b2f1e"/><path d="M6 26V13l10-7 10 7v13h-6v-7h-8v7z" fill="#f3e9d2"/><circle cx="24" cy="8" r="7.5" fill="#d32f2f" stroke="#fff" stroke-width="2"/></svg>',
)}`;

function icon(): HTMLLinkElement | null {
  return document.querySelector("link[rel=icon]");
}

const restingIcon = icon()?.getAttribute("href") ?? "favicon.svg";

/** A short two-note chime, made in the page (no file to load). */
function chime(): void {
  try {
    const audio = new AudioContext();
    const now = audio.currentTime;
    for (const [i, pitch] of [660, 880].entries()) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = pitch;
      gain.gain.setValueAtTime(0.0001, now + i * 0.16);
      gain.gain.exponentialRampToValueAtTime(0.2, now + i * 0.16 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.16 + 0.3);
      tone.connect(gain).connect(audio.destination);
      tone.start(now + i * 0.16);
      tone.stop(now + i * 0.16 + 0.32);
    }
    window.setTimeout(() => void audio.close(), 800);
  } catch {
    // No audio here (a browser without Web Audio): the title and icon still say it.
  }
}

export class TurnSignal {
  private mine = false;

  constructor(private readonly game: string) {}

  /** Called at every redraw: the title and icon follow; the sound and notification fire once,
   * when the turn comes to this player. `prompt` is what they are asked, for the notification. */
  update(myTurn: boolean, finished: boolean, prompt: string): void {
    const came = myTurn && !this.mine;
    this.mine = myTurn;
    const title = finished ? `Game over · ${this.game} — Guildhall` : myTurn ? `(●) Your turn · ${this.game} — Guildhall` : `${this.game} — Guildhall`;
    if (document.title !== title) document.title = title;
    const href = myTurn ? TURN_ICON : restingIcon;
    if (icon()?.getAttribute("href") !== href) icon()?.setAttribute("href", href);
    if (!came) return;
    if (store.getItem(SOUND_KEY) === "on") chime();
    if (store.getItem(NOTIFY_KEY) === "on" && document.hidden && "Notification" in window && Notification.permission === "granted") {
      const note = new Notification(`Your turn: ${this.game}`, { body: prompt, tag: "guildhall-turn" });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    }
  }

  /** Put the page's title and icon back (leaving the table). */
  reset(): void {
    document.title = "Guildhall — a table for friends";
    icon()?.setAttribute("href", restingIcon);
  }

  /** The player's settings: a sound (off by default) and notifications (asked on this click). */
  controls(): HTMLElement {
    const sound = h("input", { type: "checkbox", id: "turn-sound", "data-testid": "turn-sound" }) as HTMLInputElement;
    sound.checked = store.getItem(SOUND_KEY) === "on";
    sound.addEventListener("change", () => {
      store.setItem(SOUND_KEY, sound.checked ? "on" : "off");
      if (sound.checked) chime(); // what it will sound like (and the browser's audio unlocked by this click)
    });
    const box = h("div", { class: "turn-signal" }, h("label", { for: "turn-sound" }, sound, " Sound when it is my turn"));
    if (!("Notification" in window)) return box;
    const notify = h("input", { type: "checkbox", id: "turn-notify", "data-testid": "turn-notify" }) as HTMLInputElement;
    const state = h("span", { class: "muted small", "aria-live": "polite" });
    const show = () => {
      notify.checked = store.getItem(NOTIFY_KEY) === "on" && Notification.permission === "granted";
      state.textContent = Notification.permission === "denied" ? " (blocked in this browser's site settings)" : "";
    };
    notify.addEventListener("change", () => {
      if (!notify.checked) {
        store.setItem(NOTIFY_KEY, "off");
        return show();
      }
      // Asked only now, on the player's own click.
      void Notification.requestPermission().then((answer) => {
        store.setItem(NOTIFY_KEY, answer === "granted" ? "on" : "off");
        show();
      });
    });
    show();
    box.append(" ", h("label", { for: "turn-notify" }, notify, " Notify me when this tab is in the background"), state);
    return box;
  }
}
