"""The dashboard's HTML, rendered on the server (pure: data in, text out). Each page's live
part is the inner HTML of `<main id="live">`; the script replaces it from the event stream."""

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from html import escape
from urllib.parse import quote

from controller.hub.contract.incidents import FORFEITS
from controller.hub.contract.result import HandResult, Incident
from controller.venue.dashboard.floor import STALL_AFTER_S, SessionHands, TableCard
from controller.venue.dashboard.live import Rendered, mark, single
from controller.venue.dashboard.pattern_names import shown
from controller.venue.overview import clock_time
from controller.venue.store import Notice
from controller.venue.tournament.entries import Entry, describe
from controller.venue.tournament.standings import FINAL_ORDER, Line, Report

FONTS = (
    'system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC","Noto Sans SC",'
    '"Source Han Sans SC","PingFang SC","Hiragino Sans GB","Microsoft YaHei",'
    '"WenQuanYi Micro Hei","Droid Sans Fallback",sans-serif'
)
"""Latin first, then the CJK fonts of Linux, macOS and Windows, so pattern names in Chinese
render wherever one of them is installed (the English name is shown beside them anyway)."""
CSS = (
    "body{font:14px/1.35 "
    + FONTS
    + ";margin:0;background:#f4f1ea;color:#222}"
    + """
header{background:#1d4d3a;color:#fff;padding:.5em 1em;display:flex;gap:1.2em;align-items:center;
flex-wrap:wrap}
header a{color:#fff;text-decoration:none;font-weight:600}
header .live{margin-left:auto;font-size:.85em;opacity:.85}
#account{display:contents}#account .ended{background:#fff4d6;color:#6b4b00;padding:0 .4em;
border-radius:.3em}
main{padding:.6em}
.banner{background:#c0392b;color:#fff;padding:.5em 1em;font-weight:600;display:none}
.banner.on,body.hub-down #conn-lost{display:block}
body.hub-down .card{filter:grayscale(1);opacity:.6}
.floor{display:grid;grid-template-columns:repeat(auto-fill,minmax(9em,1fr));gap:.35em}
.card{background:#fff;border-radius:.4em;padding:.3em .5em;box-shadow:0 1px 2px #0003;
border-left:.45em solid #2e8b57;font-size:.82em;overflow:hidden}
.card .top{display:flex;justify-content:space-between;gap:.3em;font-weight:700}
.card .top a{color:inherit;font-size:1.15em}
.state{border-radius:.3em;padding:0 .35em;background:#e3f1e8;white-space:nowrap}
.card.waiting{border-left-color:#5b7fa3}.card.waiting .state{background:#e3ebf4}
.card.paused{border-left-color:#b58900}.card.paused .state{background:#fdf3d0}
.card.stalled{border-left-color:#e67e22}.card.stalled .state{background:#fde3c8}
.card.fault{border-left-color:#c0392b}.card.fault .state{background:#fdecea;color:#8a1c10}
.card.finished{border-left-color:#1d4d3a}.card.finished .state{background:#d6e4dc}
.card.aborted{border-left-color:#8e44ad}.card.aborted .state{background:#efe3f4}
.card.offline{border-left-color:#888;opacity:.75}.card.offline .state{background:#ddd}
.card .last,.card .hand,.card .when{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.floor .fault-text,.floor .attention{display:-webkit-box;-webkit-line-clamp:2;
-webkit-box-orient:vertical;overflow:hidden;padding:.1em .3em;margin:.1em 0}
.fault-text{background:#fdecea;color:#8a1c10;padding:.3em;border-radius:.3em;margin:.3em 0}
.attention{background:#fff4d6;padding:.3em;border-radius:.3em;margin:.3em 0}
table{border-collapse:collapse;width:100%;background:#fff}
td,th{padding:.3em .5em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}.muted{color:#777}.notices li{margin:.2em 0}
form.ops{display:flex;gap:.5em;flex-wrap:wrap;margin:.8em 0}
button,input,select{font-size:1em;padding:.35em .6em}
body.kiosk header{display:none}body.kiosk{font-size:15px}
@media (max-width:600px){.floor{grid-template-columns:repeat(auto-fill,minmax(7.6em,1fr));
gap:.25em}.card{font-size:.72em;padding:.2em .35em}main{padding:.3em}}
"""
)
SCRIPT = """
(function(){
  var live=document.getElementById('live'), badge=document.getElementById('conn');
  function two(n){return (n<10?'0':'')+n;}
  function hm(t){var d=new Date(t*1000);return two(d.getHours())+':'+two(d.getMinutes());}
  function tick(){var now=Date.now()/1000;
    document.querySelectorAll('time[data-at]').forEach(function(el){var at=+el.dataset.at;
      var m=Math.round((now-at)/60),d=new Date(at*1000);
      var when=m>=1440?(d.getMonth()+1)+'/'+d.getDate()+' '+hm(at):hm(at);
      el.textContent=when+(!el.dataset.ago||m>=1440?'':m<1?', just now':
        m<100?', '+m+' min ago':', '+Math.round(m/60)+' h ago');});
    document.querySelectorAll('.card[data-stall-after]').forEach(function(c){
      var after=+c.dataset.stallAfter;if(now>after){c.classList.add('stalled');
        c.querySelector('.state').textContent='stalled since '+hm(+c.dataset.since);}});
    var clock=document.getElementById('clock');if(clock){clock.textContent=hm(now);}}
  tick();setInterval(tick,5000);
  if(!window.EventSource||!live||!live.dataset.view){return;}
  function editing(el){var a=document.activeElement;return a&&a!==document.body&&a!==el&&
    el.contains(a)&&/^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName);}
  function stamp(){tick();document.body.dataset.updated=String(Date.now());}
  var account=document.getElementById('account'),who=account&&account.dataset.operator;
  var es=new EventSource('/events?view='+encodeURIComponent(live.dataset.view)+
    (who?'&operator='+encodeURIComponent(who):''));
  es.addEventListener('view',function(e){if(!editing(live)){live.innerHTML=e.data;stamp();}});
  es.addEventListener('parts',function(e){var parts=JSON.parse(e.data);
    for(var id in parts){var el=document.getElementById(id);
      if(el&&!editing(el)){el.outerHTML=parts[id];}}stamp();});
  es.addEventListener('account',function(e){var a=document.getElementById('account');
    if(a){a.outerHTML=e.data;}
    document.querySelectorAll('form button').forEach(function(b){b.disabled=true;});});
  es.onopen=function(){badge.textContent='live';document.body.classList.remove('hub-down');};
  es.onerror=function(){document.body.classList.add('hub-down');
    badge.textContent=es.readyState===2?'not live: reload the page':'reconnecting\\u2026';};
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


SESSION_ENDED = "your operator session ended (the recorder restarted or it expired): log in again"


def account(who: str | None, token: str = "", ended: bool = False) -> str:
    """The header's operator part: who is logged in with the log out button; or the log in
    link, saying so when the browser's session ended (the recorder keeps sessions in memory,
    so a restart ends them)."""
    if who:
        return (
            f'<span id=account data-operator="{_e(who)}"><span>{_e(who)}</span>'
            '<form method="post" action="/logout" style="margin:0"><input type=hidden '
            f'name=token value="{_e(token)}"><button>log out</button></form></span>'
        )
    if ended:
        return f'<span id=account><a href="/login" class=ended>{SESSION_ENDED}</a></span>'
    return '<span id=account><a href="/login">operator log in</a></span>'


def page(
    title: str,
    view: str | None,
    inner: str,
    who: str | None,
    forms: str = "",
    kiosk: bool = False,
    token: str = "",
    ended: bool = False,
) -> str:
    """A whole page: its live part (`view`, kept up to date by the event stream; None: a page
    that does not change, like the login form) and the forms after it, which live updates
    never touch (`token`: the operator's form token; `ended`: the browser's operator session
    is no longer known, see `account`)."""
    live = f' data-view="{_e(view)}"' if view else ""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{_e(title)} - mahjong-table venue</title><style>{CSS}</style></head>"
        f"<body{' class=kiosk' if kiosk else ''}>"
        + (
            "<header><span class=live id=conn>connecting</span></header>"
            if kiosk
            else '<header><a href="/">Floor</a><a href="/standings">Standings</a>'
            f'<a href="/notices">Notices</a>{account(who, token, ended)}'
            "<span class=live id=conn>connecting</span>"
            "</header>"
        )
        + "<div class=banner id=conn-lost>The connection to the hub is lost: what this "
        "page shows may be out of date (it reconnects by itself).</div>"
        f"<main id=live{live}>{inner}</main>{forms}"
        f"<script>{SCRIPT}</script></body></html>"
    )


def floor(
    cards: Sequence[TableCard], notices: Sequence[Notice], results: int, hub_down: str = ""
) -> Rendered:
    """The hub's own state (a banner when the recorder cannot record), every table as a card
    (one part each), then the latest notices."""
    states = Counter(c.state for c in cards)
    counts = ", ".join(f"{n} {state}" for state, n in sorted(states.items()))
    parts = {
        "hub-banner": f"<div id=hub-banner class='banner{' on' if hub_down else ''}'>"
        f"{_e(hub_down)}</div>",
        "floor-count": f"<p class=muted id=floor-count>{len(cards)} tables ({_e(counts)}), "
        f"{results} results recorded &middot; <span id=clock></span></p>",
    }
    layout = mark("hub-banner") + mark("floor-count")
    if not cards:
        layout += "<p class=muted>No table has been heard yet.</p>"
    else:
        layout += '<div class="floor">'
        for c in cards:
            parts[f"table-{c.table}"] = _card(c)
            layout += mark(f"table-{c.table}")
        layout += "</div>"
    recent = list(notices)[-5:]
    parts["floor-notices"] = (
        f"<section id=floor-notices>{'<h2>Notices</h2>' + _notice_list(recent) if recent else ''}"
        "</section>"
    )
    return Rendered(layout + mark("floor-notices"), parts)


def _at(moment: float, ago: bool = False) -> str:
    """A moment, shown in the browser's local time (the server's until the script runs)."""
    fallback = datetime.fromtimestamp(moment).astimezone().strftime("%H:%M")
    return f'<time data-at="{moment:.0f}"{" data-ago=1" if ago else ""}>{fallback}</time>'


def _card(c: TableCard, detail: bool = False) -> str:
    stall = (
        f' data-stall-after="{c.stall_after:.0f}" data-since="{c.stall_after - STALL_AFTER_S:.0f}"'
        if c.stall_after is not None
        else ""
    )
    state = c.state
    if c.state == "offline" and c.since is not None:
        state = f"offline since {datetime.fromtimestamp(c.since).astimezone():%H:%M}"
    lines = [
        f'<div class="card {_e(c.state.replace(" ", "-"))}" id="table-{_e(c.table)}" '
        f'data-table="{_e(c.table)}" data-last-hand="{c.last_hand or 0}"{stall}>',
        f'<div class=top><a href="/tables/{_e(c.table)}">{_e(c.table)}</a>'
        f"<span class=state>{_e(state)}</span></div>",
    ]
    hand = c.hand or c.last_hand
    if c.session:
        of = f" of {c.planned}" if c.planned else ""
        lines.append(
            f'<div class=hand title="{_e(c.session)}">'
            + (f"hand {hand}{of}" if hand else "no hand yet")
            + (f" &middot; {_e(c.ruleset)}" if c.ruleset else "")
            + "</div>"
        )
    if c.last_result and c.last_at is not None:
        lines.append(f'<div class=last title="{_e(c.last_result)}">last result: '
                     f"{_e(c.last_result)}</div>")  # fmt: skip
        lines.append(f"<div class='when muted'>{_at(c.last_at, ago=True)}</div>")
    if c.penalties:
        lines.append(f"<div class=pen>penalties: {c.penalties} pts</div>")
    if c.fault:
        lines.append(f'<div class=fault-text title="{_e(c.fault)}">FAULT: {_e(c.fault)}</div>')
    if c.attention:
        lines.append(f'<div class=attention title="{_e(c.attention)}">{_e(c.attention)}</div>')
    if c.pending or c.refused:
        waiting = f"results waiting {c.pending}" + (f", refused {c.refused}" if c.refused else "")
        lines.append(f"<div class=muted>{waiting}</div>")
    if detail:
        lines.append(f"<div>{_presence(c)}</div>")
        if c.session:
            lines.append(f"<div>session {_e(c.session)}</div>")
        if c.scores:
            lines.append(_scores(c.players, c.scores))
    lines.append("</div>")
    return "".join(lines)


def _presence(c: TableCard) -> str:
    heard = f"last heard {clock_time(c.heard)}" if c.heard else "never heard"
    if c.online:
        since = f" since {clock_time(c.connected_at)}" if c.connected_at else ""
        return f"online{since} <span class=muted>({heard})</span>"
    if c.since is None:
        return f"offline <span class=muted>({heard})</span>"
    how = "its last will" if c.by_will else "said goodbye"
    return f"offline since {clock_time(c.since)} ({how}) <span class=muted>({heard})</span>"


def _scores(players: Sequence[str], scores: dict[str, int]) -> str:
    order = [p for p in players if p in scores] + [p for p in scores if p not in players]
    cells = "".join(f"<tr><td>{_e(p)}</td><td class=n>{scores[p]:+d}</td></tr>" for p in order)
    return f"<table class=scores>{cells}</table>"


def table_detail(
    c: TableCard | None,
    table: str,
    hands: SessionHands | None,
    sessions: Sequence[str],
) -> Rendered:
    """One table: its card, the hands of a session, the other sessions."""
    card = (
        _card(c, detail=True) if c else f'<p class=muted id="table-{_e(table)}">Not heard yet.</p>'
    )
    parts = [f'<div id="table-{_e(table)}-hands">']
    if sessions:
        links = " ".join(
            f'<a href="/tables/{_e(table)}?session={_e(s)}">{_e(s)}</a>' for s in sessions
        )
        parts.append(f"<p>Sessions: {links}</p>")
    if hands is None:
        parts.append("<p class=muted>No hand of this session is recorded yet.</p>")
    else:
        parts.append(f"<h2>Session {_e(hands.session)}</h2>{_hands(hands.hands)}")
    parts.append(
        "<p class=muted>Black box: the referee's recording of a hand can be downloaded "
        "here once the table provides it (not yet available).</p></div>"
    )
    card_key, hands_key = f"table-{table}", f"table-{table}-hands"
    return Rendered(
        f"<h1>Table {_e(table)}</h1>{mark(card_key)}{mark(hands_key)}",
        {card_key: card, hands_key: "".join(parts)},
    )


def _hands(hands: Sequence[HandResult]) -> str:
    rows = [
        "<table class=hands><tr><th>Hand</th><th>Dealer</th><th>Winners</th>"
        "<th>Patterns</th><th>Payments</th><th>Incidents</th></tr>"
    ]
    for r in hands:
        winners = (
            ", ".join(
                r.player(w.seat)
                + (" (self-drawn)" if w.self_drawn else f" off {r.player(w.discarder or 0)}")
                for w in r.wins
            )
            or "draw"
        )
        patterns = "; ".join(
            ", ".join(f"{shown(p.name)} {p.value}" for p in w.patterns) for w in r.wins
        )
        pay = ", ".join(f"{s.player} {r.totals()[s.seat]:+d}" for s in r.seats)
        incidents = "; ".join(_incident(r, i) for i in r.incidents)
        rows.append(
            f'<tr id="hand-{r.hand}"><td class=n>{r.hand}</td>'
            f"<td>{_e(r.player(r.dealer))}</td><td>{_e(winners)}</td>"
            f"<td>{_e(patterns)}</td><td>{_e(pay)}</td><td>{_e(incidents)}</td></tr>"
        )
    return "".join(rows) + "</table>"


def _incident(r: HandResult, i: Incident) -> str:
    who = f" ({r.player(i.seat)})" if i.seat is not None else ""
    return f"{i.kind}{who}" + (f": {i.detail}" if i.detail else "")


def operator_form(table: str, token: str, session: str | None) -> str:
    """Start, pause, resume and end buttons for a logged-in operator."""

    def button(action: str, label: str) -> str:
        return f'<button name=action value="{action}">{label}</button>'

    return (
        f'<form class=ops id=table-command method=post action="/tables/{_e(table)}/command">'
        f'<input type=hidden name=token value="{_e(token)}">'
        f'<input name=session id=start-session placeholder="session id" '
        f'value="{_e(session or "")}">'
        '<input name=players id=start-players placeholder="E,S,W,N player ids">'
        '<input name=hands id=start-hands type=number min=0 value=16 style="width:5em">'
        + button("start", "Start")
        + button("pause", "Pause")
        + button("resume", "Resume")
        + button("end", "End")
        + '<input name=leaver id=end-leaver placeholder="leaver (with End)">'
        + "</form>"
    )


def standings(
    report: Report | None, stage: str | None, name: str, entries: Sequence[Entry] = ()
) -> Rendered:
    """A tournament's standings, then the director's entries (two parts)."""
    trail = "".join(f"<li>{_e(clock_time(x.at))} {_e(describe(x))}</li>" for x in reversed(entries))
    audit = f"<section id=audit><h2>Director's entries</h2><ul>{trail}</ul></section>"
    return Rendered(
        mark("standings") + mark("audit"),
        {
            "standings": f"<div id=standings>{_standings(report, stage, name)}</div>",
            "audit": audit if entries else "<section id=audit></section>",
        },
    )


def entry_form(token: str, stages: Sequence[str], note: str) -> str:
    """The director's form: a forfeit, penalty, correction, substitute or override."""
    kinds = "".join(
        f'<option value="{k}">{k}</option>'
        for k in ("forfeit", "penalty", "correction", "substitute", "override")
    )
    forfeits = "".join(f'<option value="{k}">{k}</option>' for k in sorted(FORFEITS))
    stage_options = "".join(f'<option value="{_e(s)}">{_e(s)}</option>' for s in stages)

    def field(name: str, label: str, extra: str = "") -> str:
        return f"<label>{label} <input name={name} id=entry-{name} {extra}></label>"

    return (
        "<section class=operator><h2>Director's entry</h2>" + note
        + '<form class=ops id=entry method=post action="/entries">'
        f'<input type=hidden name=token value="{_e(token)}">'
        f"<label>kind <select name=kind id=entry-kind>{kinds}</select></label>"
        + field("player", "player", "required")
        + f"<label>stage <select name=stage id=entry-stage>{stage_options}</select></label>"
        + field("session", "session")
        + field("hand", "hand", "type=number min=1 style=width:5em")
        + f"<label>forfeit <select name=forfeit id=entry-forfeit>{forfeits}</select></label>"
        + field("points", "points", "type=number style=width:6em")
        + field("substitute", "substitute")
        + field("reason", "why", "required")
        + "<button id=entry-submit>Keep</button></form></section>"
    )  # fmt: skip


def _standings(report: Report | None, stage: str | None, name: str) -> str:
    """A tournament's standings: one stage, or every stage and the final order."""
    if report is None:
        return "<p class=muted>No tournament is loaded (start the hub with --tournament).</p>"
    names = [stage] if stage else [*report.stages, FINAL_ORDER]
    links = " ".join(
        f'<a href="/standings?stage={_e(quote(s))}">{_e(s)}</a>'
        for s in [*report.stages, FINAL_ORDER]
    )
    parts = [f"<h1>{_e(name)}</h1><p>Stages: {links}</p>"]
    for s in names:
        lines = report.final if s == FINAL_ORDER else report.stages.get(s, [])
        parts.append(f"<h2>{_e(s)}</h2>{_standing_rows(lines, s)}")
    return "".join(parts)


def _standing_rows(lines: Sequence[Line], stage: str) -> str:
    rows = [
        "<table class=standings><tr><th class=n>Rank</th><th>Player</th><th class=n>Points"
        "</th><th class=n>Hands</th><th class=n>Wins</th><th class=n>Forfeits</th>"
        "<th class=n>Entered</th><th>Prize</th></tr>"
    ]
    for x in lines:
        note = "" if x.qualified else " <span class=muted>(under the minimum)</span>"
        if x.override:
            note = f" <span class=muted>(ranked by the director: {_e(x.override)})</span>"
        rows.append(
            f'<tr id="line-{_e(stage.replace(" ", "-"))}-{_e(x.player)}">'
            f"<td class=n>{x.rank or '-'}{' tie' if x.tie else ''}</td>"
            f"<td>{_e(x.name)} "
            f"<span class=muted>{_e(x.player)}</span>{note}</td><td class=n>{x.points}"
            f"</td><td class=n>{x.hands}</td><td class=n>{x.wins}</td>"
            f"<td class=n>{x.forfeits}</td><td class=n>{x.adjusted:+d}</td>"
            f"<td>{_e(x.prize)}</td></tr>"
        )
    return "".join(rows) + "</table>"


def notices(items: Sequence[Notice], refusals: Sequence[tuple[str, str | None, str]]) -> Rendered:
    """Every notice and refusal (one part)."""
    return single("notices", f"<div id=notices>{_notices(items, refusals)}</div>")


def _notices(items: Sequence[Notice], refusals: Sequence[tuple[str, str | None, str]]) -> str:
    parts = ["<h1>Notices</h1>", _notice_list(items) if items else "<p class=muted>None.</p>"]
    if refusals:
        rows = "".join(
            f"<li>{_e(t)}: result {_e(i or '(no id)')} refused: {_e(why)}</li>"
            for t, i, why in refusals
        )
        parts.append(f"<h2>Refused results</h2><ul class=notices>{rows}</ul>")
    return "".join(parts)


def _notice_list(items: Sequence[Notice]) -> str:
    rows = "".join(
        f"<li>{_e(clock_time(n.at))} <b>{_e(n.table)}</b> "
        f"{_e(n.kind.replace('_', ' '))}: {_e(n.text)}</li>"
        for n in items
    )
    return f"<ul class=notices>{rows}</ul>"


def store_down(since: float, why: str) -> str:
    """The banner while the results store is down."""
    return (
        f"<div class=fault-text id=store-down>Results store down since {_e(clock_time(since))}: "
        f"{_e(why)}. Nothing is acked meanwhile; the tables keep their results and the "
        "recorder stores them when it returns.</div>"
    )


def login(error: str, token: str = "") -> str:
    """The operator login form (no form without its session's token)."""
    message = f"<p class=fault-text>{_e(error)}</p>" if error else ""
    if not token:
        return f"<h1>Operator log in</h1>{message}"
    return (
        f"<h1>Operator log in</h1>{message}<form method=post action=/login>"
        f'<input type=hidden name=token value="{_e(token)}">'
        "<p><input name=name placeholder=name autocomplete=username></p>"
        "<p><input name=password type=password placeholder=password "
        "autocomplete=current-password></p><p><button>Log in</button></p></form>"
    )


def message(text: str) -> str:
    """A one-line page."""
    return f"<p>{_e(text)}</p>"
