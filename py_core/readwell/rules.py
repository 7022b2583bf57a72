"""Every rule table in one place, built once (as Readability's REGEXPS).

Class/id patterns match whole *tokens* of a class or id (split on ``-``, ``_``, spaces and camelCase), never
substrings: ``share`` matches ``share-bar`` but not ``shareholder``; ``ad`` matches ``ad-slot`` but not
``adventure`` or ``header``. Over-broad selectors are the top defect class in this field, so every entry
here has a look-alike fixture where legitimate content survives.
"""

from __future__ import annotations

import re

# --- scoring: class/id tokens that raise or lower a candidate's weight --------------------------------------
POSITIVE_TOKENS = frozenset(
    """article body content entry hentry h-entry main page post text blog story prose markdown
    articlebody storybody postbody entrycontent rich""".split()
)
NEGATIVE_TOKENS = frozenset(
    """hidden banner combx comment comments com contact foot footer footnote masthead media meta outbrain
    promo promoted related scroll share shoutbox sidebar skyscraper sponsor sponsored shopping tags tool
    widget nav navbar navigation menu breadcrumb breadcrumbs pagination pager social newsletter subscribe
    signup advert advertisement ad ads byline author dateline cookie popup modal recirc recommended
    trending teaser teasers""".split()
)
# Blocks never worth scoring as article candidates (still kept if they end up inside the root).
UNLIKELY_TOKENS = frozenset(
    """banner breadcrumbs breadcrumb combx comment comments community cover disqus extra footer gdpr header
    legends menu related remark replies rss shoutbox sidebar skyscraper social sponsor supplemental
    ad ads advert agegate pagination pager popup yom-remote nav navbar navigation cookie consent
    newsletter subscribe signup share sharing recirc recommended trending promo outbrain taboola
    rodape cabecalho fusszeile kopfzeile kommentare comentarios commentaires reacties werbung anzeige
    publicidad publicidade publicite relacionados verwandte similaires""".split()
)
COMMENT_TOKENS = frozenset(
    {
        "comment",
        "comments",
        "commentlist",
        "disqus",
        "replies",
        "respond",
        "discussion",
        "kommentare",
        "comentarios",
        "commentaires",
        "reacties",
    }
)
MAYBE_TOKENS = frozenset("and article body column content main shadow story post entry".split())

UNLIKELY_ROLES = frozenset(
    "menu menubar complementary navigation alert alertdialog dialog banner contentinfo search".split()
)

# --- remove_by_selector ----------------------------------------------------------------------------------
# Exact selectors: structural boilerplate whose meaning is certain.
EXACT_SELECTORS: tuple[tuple[str, str], ...] = (
    ("nav", "navigation element"),
    ("[role=navigation]", "ARIA navigation landmark"),
    ("[role=complementary]", "ARIA complementary landmark (sidebar)"),
    ("[role=dialog]", "dialog"),
    ("[role=alertdialog]", "alert dialog"),
    ("[role=banner]", "ARIA banner landmark"),
    ("[role=contentinfo]", "ARIA contentinfo landmark (site footer)"),
    ("form", "form (search, login, newsletter)"),
    ("button", "button"),
    ("input", "form control"),
    ("select", "form control"),
    ("textarea", "form control"),
    ("[itemprop=comment]", "schema.org comment"),
    ("footer", "<footer> of the article or page (tags, author box, comment policy)"),
    ("[data-ad-slot]", "ad slot"),
    ("ins.adsbygoogle", "ad slot"),
)

# Partial class/id token patterns. guard: "always" removes; "unless-prose" keeps blocks that read like prose
# (several sentences, low link density), because the same words name real sections ("Related work").
PARTIAL_PATTERNS: tuple[tuple[frozenset[str], str, str], ...] = (
    (
        frozenset({"share", "sharing", "sharebar", "shares", "social", "socials", "sharetools"}),
        "unless-prose",
        "share/social bar",
    ),
    (
        frozenset({"newsletter", "subscribe", "subscription", "signup", "optin"}),
        "unless-prose",
        "newsletter or subscription ask",
    ),
    (
        frozenset(
            {
                "comments",
                "comment",
                "disqus",
                "replies",
                "respond",
                "commentlist",
                "kommentare",
                "comentarios",
                "commentaires",
                "reacties",
            }
        ),
        "unless-prose-section",
        "comments section",
    ),
    (
        frozenset(
            {
                "related",
                "recirc",
                "recommended",
                "recommendations",
                "trending",
                "outbrain",
                "taboola",
                "morestories",
                "readnext",
            }
        ),
        "unless-prose",
        "related or recommended stories",
    ),
    (
        frozenset(
            {
                "ad",
                "ads",
                "advert",
                "advertisement",
                "adslot",
                "adunit",
                "sponsor",
                "sponsored",
                "dfp",
                "gpt",
                "werbung",
                "anzeige",
                "publicidad",
                "publicidade",
                "publicite",
            }
        ),
        "always",
        "advertisement",
    ),
    (
        frozenset({"promo", "promotion", "promoted", "teaser", "upsell", "paywall", "cta"}),
        "unless-prose",
        "promotion or teaser",
    ),
    (frozenset({"cookie", "cookies", "consent", "gdpr"}), "always", "cookie or consent banner"),
    (frozenset({"popup", "modal", "overlay", "lightbox"}), "unless-prose", "pop-up or modal"),
    (frozenset({"breadcrumb", "breadcrumbs", "pagination", "pager"}), "always", "navigation aid"),
    (frozenset({"sidebar", "widget", "widgets"}), "unless-prose", "sidebar widget"),
    (frozenset({"print", "toolbar", "tools"}), "unless-prose", "page tools"),
    (frozenset({"skip", "skiplink", "skiplinks"}), "always", "skip link"),
    (frozenset({"ticker", "newsticker", "breakingnews", "marquee"}), "always", "news ticker"),
    (frozenset({"author", "bio", "authorbox", "authorbio", "aboutauthor"}), "bio-box", "author bio box"),
    (frozenset({"tags", "tagcloud", "taglist", "categories"}), "unless-prose", "tag list"),
    (frozenset({"footer", "masthead", "header"}), "outside-root-top", "page header or footer"),
)

# --- remove_by_pattern: whole-block boilerplate text ----------------------------------------------------
# Matched against the normalized text of short blocks only (see MAX_PATTERN_BLOCK); a sentence using these
# words inside a long paragraph is never touched.
BOILERPLATE_TEXT: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.I), reason)
    for p, reason in (
        (
            r"^(share|teilen|partager|compartir)( this| the)?( article| story| post| page)?( on| via)?\b.{0,80}$",
            "share prompt",
        ),
        (
            r"^(sign up|subscribe|register|join)\b.{0,40}\b(newsletter|updates|inbox|mailing list|free)\b.{0,200}$",
            "newsletter ask",
        ),
        (
            r"^(get|receive)\b.{0,60}\b(newsletter|delivered to your inbox|in your inbox)\b.{0,160}$",
            "newsletter ask",
        ),
        (
            r"^(read more|more from|related|see also|recommended|you may also like|you might also like|most read|popular)\b.{0,120}$",
            "read-more or related prompt",
        ),
        (r"^(click|tap) here to (subscribe|sign up|read more|continue)\b.{0,120}$", "call to action"),
        (r"^follow us( on)?\b.{0,120}$", "social follow prompt"),
        (r"^(all rights reserved|copyright\b|©).{0,200}$", "copyright line"),
        (r"^.{0,120}\ball rights reserved\.?$", "copyright line"),
        (
            r"^(advertisement|advert|anzeige|publicidad|publicité|sponsored( content)?|story continues below( advertisement)?|ad)$",
            "advertisement label",
        ),
        (
            r"^(see more|don'?t miss|also on [\w.]+|also read|read also|more on this|related stories|watch|listen)\s*[:»›]?\s*.{0,160}$",
            "related-story prompt",
        ),
        (r"^like this (story|article|post)\?.{0,80}$", "share prompt"),
        (
            r"^\(?(leggi anche|lesen sie auch|mehr zum thema|lire aussi|à lire aussi|leia também|veja também|"
            r"lea también|vea también|lees ook|czytaj też|читайте также)\b.{0,200}$",
            "read-more prompt",
        ),
        (
            r"^(have a (news )?tip|write to|reach the (reporter|writer|author)s?|contact the (reporter|writer|author))\b.{0,200}$",
            "author contact line",
        ),
        (
            r"^follow (us|@?[\w.]+|the [\w\s.]{1,40}?)( on| at)? (facebook|twitter|instagram|linkedin|youtube|tiktok|x)\b.{0,160}$",
            "social follow prompt",
        ),
        (r"^(subscribe to|join) (our|the)\b.{0,200}$", "subscription ask"),
        (r"^(citation|disclaimer)\s*:.{0,400}$", "citation or disclaimer boilerplate"),
        (
            r"^this (document|article|material|story|content) (is subject to copyright|may not be (re)?published)\b.{0,300}$",
            "copyright notice",
        ),
        (
            r"^(leave a (comment|reply)|comments?|\d+ comments?|add a comment|post a comment)$",
            "comment prompt",
        ),
        (
            r"^(skip to (main )?content|back to top|print( this)?( article| page)?|email( this)?( article)?)$",
            "page tool",
        ),
        (r"^(loading|loading\.\.\.|loading…)$", "loading placeholder"),
        (
            r"^(caption|close|hide caption|toggle caption|expand|enlarge|enlarge this image|show more|show less|"
            r"view (the )?(gallery|slideshow|comments)|open gallery|play video|watch video|next|previous|prev|"
            r"continue reading|more|see more|tags?|topics?|filed under|share|tweet|pin|email|print)\s*[:»›>]?$",
            "interface label",
        ),
        (
            r"^\(?((photo|image|picture|foto|photograph|illustration|video|graphic)s?( credit)?|credit|source)\s*[:：|]\s*.{1,80}$",
            "media credit line",
        ),
        (r"^(image|photo|slide|picture|foto)?\s*\d{1,3}\s*(of|/|de|von|sur)\s*\d{1,3}$", "gallery counter"),
        (
            r"^(posted|published|updated|last updated|modified|first published)( on| at)?\b(?=.*\d).{0,60}$",
            "date line",
        ),
        (
            r"^(this (article|story|post) (was|is) (originally )?(published|updated)|updated|published)\b.{0,60}$",
            "date line",
        ),
    )
)
MAX_PATTERN_BLOCK = 420  # characters: longer blocks are prose, never boilerplate by pattern

# Promotional text with low link density (Readability keeps it): commercial imperatives in a short block.
PROMO_TEXT = re.compile(
    r"\b(subscribe|subscription|sign up|newsletter|deals?|discount|save \d+|\d+ ?% off|percent off|"
    r"coupon|promo code|free trial|buy now|shop now|order now|limited time|download (our|the) app|"
    r"get the app|unlock|premium|members? only)\b",
    re.I,
)

# --- callouts --------------------------------------------------------------------------------------------
CALLOUT_TYPES = (
    "note",
    "tip",
    "important",
    "warning",
    "caution",
    "info",
    "danger",
    "success",
    "question",
    "example",
    "quote",
    "abstract",
    "todo",
    "bug",
    "failure",
    "hint",
    "attention",
    "error",
)
CALLOUT_ALIASES = {
    "info": "note",
    "hint": "tip",
    "attention": "warning",
    "danger": "caution",
    "error": "caution",
    "failure": "caution",
    "bug": "caution",
    "success": "tip",
    "question": "note",
    "example": "note",
    "quote": "note",
    "abstract": "note",
    "todo": "note",
    "secondary": "note",
    "primary": "note",
}

# --- byline / dates -------------------------------------------------------------------------------------
BYLINE_TOKENS = frozenset({"byline", "author", "authors", "writer", "contributor", "by", "dateline"})
BYLINE_TEXT = re.compile(r"^\s*(by|von|par|por|door|di|av)\s+(.{2,80})$", re.I)

TITLE_SEPARATORS = re.compile(r"\s+[|\-–—\\/>»·•]\s+|\s*[｜]\s*")


def tokens_of(value: str) -> set[str]:
    """Tokens of a class or id value: split on separators and camelCase, lower-cased.

    Joined forms are included too (``share-bar`` → ``share``, ``bar``, ``sharebar``) so tables can name
    both.
    """
    out: set[str] = set()
    for word in value.split():
        parts = [p for p in re.split(r"[-_:.\s]+|(?<=[a-z])(?=[A-Z])", word) if p]
        lower = [p.lower() for p in parts]
        out.update(lower)
        if len(lower) > 1:
            out.add("".join(lower))
    return out
