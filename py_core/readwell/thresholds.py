"""Every numeric threshold of root selection and the shared judgements, named, with the reason for its value.

Why one table (trafilatura's ``settings.cfg`` idea): a number inline in a condition cannot be found, compared
or tuned; here each has a name saying what it measures and a line saying why this value. Units are
``text_units`` (characters, CJK ×3), clause marks (``textstats.clause_marks``), link density (share of text
inside links, 0..1) and scores (Readability-style points). Values were tuned on the fixtures and the
scrapinghub benchmark: changing one changes goldens or benchmark figures, which is the review.
"""

from __future__ import annotations

# --- class/id weight (signals.class_weight) -----------------------------------------------------------------
CLASS_WEIGHT = 25  # Readability's ±25 for an article-ish / boilerplate class or id token
ARTICLE_BODY_WEIGHT = 40  # itemprop=articleBody is the page saying where the article is: stronger than a name

# --- "a wrapper holding most of the text is never removed" --------------------------------------------------
# Three cut-offs, kept apart on purpose: unifying the remove_by_selector one at 0.5 drops a page's text on the
# scrapinghub benchmark (F1 0.972 → 0.971); the other two measure against different totals.
MOST_OF_PAGE = 0.5  # is_unlikely: a block with over half of <body>'s text is a wrapper, whatever its name
MOST_OF_ROOT_NAMED = 0.6  # remove_by_selector: over 60% of the root is a wrapper (ASP.NET's page-wide <form>)
MOST_OF_ROOT_SHAPE = 0.5  # remove_low_score: a block with over half of the root's text is the article
# remove_low_score: a block under 800 units whose links hold more than this share of its text is a widget
LINK_DENSITY_LITTLE_TEXT = 0.33
BEST_BODY_SHARE = 0.5  # remove_low_score: a block with over half of scoring's best element's text is its body
# remove_low_score: link lists that together hold this share of the root's text are a link post's body (a
# weekly roundup of headlines): one list over MOST_OF_ROOT_SHAPE is kept already, a post split into a list
# and a "More:" list was emptied and declined. 0.8: a short post with "Link love"/"Popular" lists after it
# holds 0.55-0.8 of its root in those lists on the development sets (0.6 took such lists into 4 dragnet-dev
# pages).
LINK_POST_LIST_SHARE = 0.8
# remove_low_score: ... and their items average this many units: headlines, not a menu's one- to three-word
# links (a page's menus and archive lists average 12-20 units an item where a root is mostly lists)
LINK_POST_ITEM_UNITS = 40
# remove_low_score: a block whose images have no source (they show nothing) is judged on its text, and this
# much text is an article's (the boxes of sourceless images the development sets keep out have < 200)
SOURCELESS_IMAGES_TEXT_UNITS = 500

# --- can an element hold the article (signals.is_unlikely, article_holders) ---------------------------------
ARTICLE_TAG_UNITS = 500  # an <article> with this much text is a landmark its ancestors must not lose
HEADER_MAX_PARAGRAPHS = 3  # a <header> with fewer paragraphs is a page header, not an article intro
# a <form> holding this many paragraphs of prose wraps a page section (an ASP.NET content column), not only
# controls: of the development sets' forms with a prose paragraph, the forms of controls have one (comment
# rules, a "report this comment" note, formatting help), the one wrapping an article has three
FORM_PROSE_PARAGRAPHS = 2

# --- reads as prose (signals.reads_as_prose) ----------------------------------------------------------------
PROSE_MIN_UNITS = 200  # about two sentences: less cannot be told apart from a blurb
PROSE_MIN_MARKS = 4  # several clauses: a labelled link list has almost none
PROSE_MAX_LINK_DENSITY = 0.2  # prose links a few words; boilerplate is mostly links
PROSE_UNITS_WITHOUT_PARAGRAPH = 400  # text this long reads as prose even without <p> markup
# a <blockquote> with this much text outside links quotes someone's post (an embedded tweet is one sentence:
# a share bar has none; rules.quotes_a_post)
QUOTED_POST_MIN_UNITS = 40
THREAD_MIN_ITEMS = 2  # two repeated comment-like items make a thread (one is a quoted reply)
# remove_by_selector.remove_trailing_thread: a comment thread closing the root goes from its heading on ...
THREAD_MIN_BEFORE_UNITS = 150  # ... when an article comes before it (a headline and a byline are shorter)
THREAD_EMPTY_TAIL_UNITS = 200  # ... a thread without evidence only when this short ("No comments", a form)
THREAD_ITEM_SIBLINGS = 3  # the best candidate inside a thread is one of this many look-alike items
THREAD_LINE_MAX_CHARS = 100  # an author or date line of a comment is short
THREAD_HEADING_MAX_UNITS = 160  # a heading saying "12 Comments" is short; longer is a text about comments
# remove_low_score: a block it removes that holds the start of a thread by its words ("Comments", "Have your
# say") takes the thread after it along when this many of the comment system's controls follow: form fields,
# short lines speaking of comments ("Add your comment", "You must be logged in to report a comment"). Two, as
# for thread items: one such line is a sentence of an article's ending ("No comment from the ministry").
THREAD_INTERFACE_MIN = 2
# select_root: a candidate shaped like a comment thread (a run of look-alike items, each with a short dated
# line of its own: "Name  November 3, 2012 at 10:46 am", a <time>) holds readers' comments, not the article,
# whatever it is named: scoring is run again without it (find_root, _thread_runs).
# select_root: a list of excerpts linking into other pages' anchors, the pages repeating, is a "recent
# comments" widget, not scored (``_excerpt_feed``): 5 items (a widget shows 5-30), 80% of them that shape,
# and fewer distinct pages than 80% of those items (the same posts come back).
EXCERPT_FEED_MIN_ITEMS = 5
EXCERPT_FEED_ITEM_SHARE = 0.8
EXCERPT_FEED_MAX_PAGE_SHARE = 0.8
THREAD_SHAPE_MIN_ITEMS = 4  # dated items needed: two or three dated blocks are an article's sections
THREAD_SHAPE_DATED_SHARE = 1 / 3  # share of the children that are dated items (a <dl> dates only its <dt>s)
THREAD_SHAPE_MAX_ITEM_SHARE = 0.6  # no item holds more of the prose (else one dated article, not a thread)
# a block after a thread with at least this share of link text (the previous/next post line, a tag list) is
# navigation: the thread still closes the post's block (select_root._after_prose)
THREAD_AFTER_LINK_DENSITY = 0.5
THREAD_HEAD_LEVELS = 6  # a commenter's head (name, date) sits this many levels into the item at most
# A reply tree (an item holding a list of the same tag with its replies, ul > li > ul > li) is read as one
# run: its items are counted through nested lists found this many levels into an item, and each item's share
# of the text is its own (without its replies): one first comment holds most of a nested thread's text.
THREAD_NEST_LEVELS = 6
PHRASE_CONTEXT_UNITS = 60  # an inline element with this much sentence text around it is a phrase in prose ...
PHRASE_BLOCK_MAX_NODES = 600  # a paragraph has fewer nodes; a bigger block is read only around the phrase
PHRASE_LINE_MAX_NODES = 60  # a bigger block: a phrase's line is read from this many nodes each way ...
PHRASE_SIBLINGS_MAX = 2_000  # ... in a block of at most this many children (more: not looked for)
PHRASE_CONTEXT_MARKS = 1  # ... when it has a comma or sentence end (share rows and date lines have none)
# A shorter paragraph ending a sentence is prose too when one of this many nearest paragraphs on either side
# has that much sentence text: a story's dialogue runs a few one-line paragraphs between narrative ones.
PHRASE_NEIGHBOUR_PARAGRAPHS = 3
# ... unless it has more than this many other links and under PHRASE_CONTEXT_UNITS of its own words: a line of
# dialogue annotated with a popup note carries that one link, while a short line of actions that ends a
# sentence ("Post a comment or leave a trackback: Trackback URL.") is a post's meta line, the interface the
# class rules are for. 0: any other link on a short line makes it a line of actions.
PHRASE_SHORT_LINE_MAX_LINKS = 0
SENTENCE_SPAN_MIN_UNITS = 20  # a <p>'s sentence in a <span> has this much text outside links (credits: less)
# The page's title heading is one of these (h4-h6 are a sidebar's or a box's own headings): a block opening
# with one restating the title is the post (remove_by_selector.opens_with_title); one whose text is in the
# <title> anchors the article (signals.is_title_heading: select_root._title_anchored, root_model's page facts)
TITLE_BLOCK_HEADINGS = frozenset({"h1", "h2", "h3"})
TITLE_HEADING_MIN_CHARS = 10  # ... with this much text at least: a shorter heading is in any title by chance
# ...for these partial rules only: an author's box never opens with the post's headline. Guarding every
# partial rule kept blocks that other rules rightly take (scrapinghub 7a457a4f and 5a822960, dragnet-dev
# R436 went down, both parsers).
TITLED_POST_RULES = frozenset({"author-bio"})
BIO_BOX_MAX_UNITS = 600  # an author box is short; a longer block named "author" is an essay about them
# remove_by_pattern's repeated-block rule spares a later copy that is a paragraph of the article's flow (a <p>
# whose parent holds this many <p>s) when the first copy is not: a lead first printed as a photo caption or a
# video's dek, items quoted one by one before the whole list is pasted. The page prints the text twice and the
# golds keep both (l3s-gn1, dragnet-dev, cleanportaleval). A slideshow's captions (a caption block a slide)
# and a second copy of the article's paragraphs (first copy in a flow too) still go.
REPEATED_FLOW_MIN_PARAGRAPHS = 3

# --- data or layout table (context._data_table, after Readability's size test) ------------------------------
# A table without data markup (caption, th, thead, summary) that Readability's size test calls data is
# protected from the removal stages. It is data only with this many rows (one row of cells is a tool bar:
# "Email | Print | Text size") and when this share of its non-empty cells has words outside links (a grid of
# teaser, archive or glossary links is navigation drawn as a table). l3s-gn1 +0.0006 (10 pages up, 1 down).
DATA_TABLE_MIN_ROWS = 2
DATA_TABLE_WORDED_CELLS = 0.5

# --- tiny media (rules.TINY_RULES) --------------------------------------------------------------------------
PIXEL_MAX = 2  # px: an image this small in both directions (or one, with a tracker URL) shows nothing
ICON_MAX = 48  # px: an image within 48×48 named or sourced as an icon is decoration, not content
# px: an image this small (width and height both given) is of type size: an icon before a label's words
# ("[camera] In pictures") is the label's glyph, not a picture (type is 10-20 px tall, a thumbnail 50+).
GLYPH_MAX_WIDTH = 32
GLYPH_MAX_HEIGHT = 24
# A line of this many words or fewer (no sentence end) right above a removed group of links, cards or
# pictures that ends its parent is the group's label ("Latest", "More on this story", "In pictures").
LABEL_MAX_WORDS = 6

# --- scoring (select_root.score_candidates) -----------------------------------------------------------------
PARAGRAPH_MIN_UNITS = 25  # Readability's 25 characters: shorter blocks are labels, not paragraphs
LIST_ITEM_MIN_MARKS = 1  # a list item scores only if it has at least one clause mark (a sentence)
LIST_ITEM_MAX_LINK_DENSITY = 0.5  # a list item that is mostly a link is navigation
LENGTH_BONUS_UNITS = 100  # one point per 100 units of paragraph text ...
LENGTH_BONUS_MAX = 3  # ... up to three (Readability's length bonus)
LINK_PENALTY = 0.5  # a paragraph's points shrink by half its link density before propagation
MAX_PROPAGATION_LEVEL = 4  # points reach the paragraph's parent and four more ancestors, no further
DIV_PARAGRAPH_DIRECT_UNITS = 80  # a div with this much direct text beside blocks is a paragraph itself
# A table cell's own text beside blocks is a paragraph only when one run of it (between <br>s) is that long:
# a cell of dates or names beside links has as much direct text, in many short runs (news or comment lists).
CELL_PARAGRAPH_RUN_UNITS = 80
# A candidate's article-ish class/id bonus (+25) is scaled by its text up to this many units: a one-line
# author box named ``field-content`` outscored short link-rich posts (a headline and a byline are shorter).
NAMED_CANDIDATE_MIN_UNITS = 150

# --- refining the top candidate (select_root.find_root) -----------------------------------------------------
STRONG_RANKS = 5  # the runners-up considered when looking for a split article
STRONG_SHARE = 0.75  # a runner-up within 75% of the top score is part of the same article
STRONG_MIN_COUNT = 2  # two strong runners-up under one ancestor make that ancestor the article
CLIMB_FLOOR_DIVISOR = 3  # climbing stops at a parent scoring under a third of the candidate (Readability)
CHUNK_MIN_SHARE = 0.2  # a chunk repeating the candidate's class carries real text: a fifth of its score
# ... and reads as the article's text: paragraphs of writing (rules.paragraph_worth, link density under
# SIBLING_PROSE_LINK_DENSITY) hold this share of its text. Measured over the five development sets, the chunks
# joined to real chunked articles hold 0.96-1.0 of their text in such paragraphs (0.83-1.0 with the article
# names masked); the side columns and boxes that repeat a template-wide class (header, columns and footer all
# named alike) 0.0-0.72, one masked sponsor column of long blurbs 0.84.
CHUNK_PROSE_SHARE = 0.8
# The test is for chunks bringing this share of the candidate's text or more (a column's worth): the smaller
# blocks repeating the class are a post's byline or meta line styled like its body (0.01-0.19 of the
# candidate's text on the five sets, joined with the post: its wrapper holds the title), while the side
# columns read as chunks brought 0.37-0.45 of it.
CHUNK_PROSE_TEST_SHARE = 0.25
PROSE_SHARE_TO_CLIMB = 0.6  # climb while the candidate holds under 60% of its ancestor's prose (sections)
# select_root._title_anchored: the page's title heading (an h1-h3 whose text is in <title>) anchors the
# article. A best candidate apart from every title heading (neither holding one nor following one within
# this many levels of it) gives way to the highest candidate anchored to one that scores at least this share
# of it: a sidebar box, a recent-reviews list or a footer's copyright block outscored the post once the post's
# "content"/"entry" name was unknown.
TITLE_ANCHOR_LEVELS = 2
TITLE_ANCHOR_SCORE_SHARE = 0.5
# ... and holds this share of its prose at least: the headline's own block (headline, dek, byline) is
# anchored too, but the article body below it, in a block of its own, is no box beside it
TITLE_ANCHOR_PROSE_SHARE = 0.5

# --- joining siblings (select_root._siblings_to_join) -------------------------------------------------------
SIBLING_MIN_SCORE = 10.0  # Readability's floor for a sibling's score, whatever the top score
SIBLING_SCORE_SHARE = 0.2  # ... or a fifth of the top score, whichever is higher
SAME_CLASS_BONUS = 0.2  # a sibling with the candidate's exact class gets a fifth of the top score
SIBLING_MAX_LINK_DENSITY = 0.3  # a scored sibling with more links is a link block
MEDIA_MAX_LINK_DENSITY = 0.5  # lead media beside the article is not a linked thumbnail strip
PROMO_MAX_UNITS = 600  # a promotional sibling shorter than this is an ad box; longer is an article about it
SIBLING_PROSE_UNITS = 80  # an unscored sibling with more text reads as a paragraph of the article ...
SIBLING_PROSE_LINK_DENSITY = 0.25  # ... if it has few links ...
SIBLING_PROSE_MARKS = 2  # ... and a couple of clauses (one for a lead <header>)
# remove_low_score.introduced_list: a list whose items each add words to their link, right after a <p> of at
# least this much text (a sentence introducing it: "If you are curious, click the links to read them.") and
# followed by more of the article's paragraphs, is the article's own list
LIST_INTRO_MIN_UNITS = 40
STRAY_TEXT_MAX = 25  # loose text beside the article shorter than this is a separator or label
# --- a lead player block before the article's container (select_root._lead_player) --------------------------
LEAD_PLAYER_LEVELS = 2  # the player sits beside the root or beside its container (a post wrapper), no higher
LEAD_LABELS_SHARE = (
    0.15  # climbing past the container only when its other children are labels ("Filed under")
)

# --- the top of the root (remove_by_pattern.start_lines) ----------------------------------------------------
START_LINES = 8  # lines read at the top of the root: headline, kicker, byline, date and a standfirst fit
START_PROSE_UNITS = 200  # the first line this long is the article's prose: the top ends there
BYLINE_LINE_MAX_WORDS = 8  # words besides the name on a byline line ("By X, AP Business Writer 47 minutes
# ago" has 6); a sentence naming the author has more ("X, who covers the harbour, wrote from the quay ...")

# --- a group of teaser cards inside the root (remove_low_score.teaser_group) --------------------------------
# A teaser card may open with a short label before its linked headline (a section, a source, a date: "Market
# recaps - ", "12 May 2031: "): at most this many words; a longer opening is a sentence that holds a link.
TEASER_LABEL_MAX_WORDS = 6
TEASER_GROUP_MAX_SHARE = 0.4  # of the root's text: a larger group of linked headlines with a paragraph each
# may be the article (a news roundup, a list of talks or books the post is about), so it needs more evidence:
TEASER_EXCERPTS_MIN_PART = 0.75  # ... this part of its cards end in an ellipsis: excerpts of other pages, cut
# at a length (an article's own items end their sentences; one may quote "..." and still not be a teaser)
TEASER_EXCERPTS_MAX_SHARE = 0.75  # ... and the rest of the root holds a quarter of its text: a front page or
# an archive of excerpts is nothing but excerpts, and it is the page's content

# --- a trailing teaser block (remove_by_pattern.remove_trailing_teasers) ------------------------------------
TEASER_TAIL_LINK_DENSITY = 0.6  # what follows the heading is mostly links (headlines), not sentences
TEASER_TAIL_MIN_LINKS = 2  # a list of headlines, not one "read more" link
TEASER_TAIL_MIN_CARDS = 3  # ... or this many cards led by a headline link, each with a line of summary
TEASER_TAIL_MAX_SHARE = 0.3  # of the root's text: more is an article section, whatever its heading says
NOTICE_MIN_BEFORE_UNITS = 600  # a legal notice ends an article only after this much text (not a short page)
NOTICE_TAIL_MAX_UNITS = (
    400  # what follows the notice to the end of the root: a footer line or two, no section
)

# --- plugin objects (resolve_deferred._object_fallbacks) ----------------------------------------------------
# A plugin object's fallback is moved out beside it only when it holds a sentence of text (a video's
# description); "Get the plugin" notices are shorter (20-60 units) and stay inside, dropped with the object.
OBJECT_FALLBACK_MIN_UNITS = 80

# --- the retries of a declined page (extract._may_retry) ---------------------------------------------------
# The first run said "no article"; the retry with scoring's best element overrules that verdict only with
# this many times ``min_article_chars`` of text: a paragraph or more, not a sidebar widget's blurb (on the
# development sets the retries that found the gold had 400-600 characters, the two that found a widget's
# blurb 170-230).
RETRY_MIN_CHARS_FACTOR = 3
# the last retry's root (select_root.prose_runner_up) scores at least this share of the best element: the
# story right behind a short block that won on its name, not a sidebar module far down the ranking
RETRY_RUNNER_SCORE_SHARE = 0.5

# --- a page that is one short text (extract.min_article_units) ---------------------------------------------
# Below ``min_article_chars`` a root is still the article when it is all the page has: it holds this share
# of the page's text (no navigation, footer or widgets beside it), has at least a sentence's worth of text
# with a clause or sentence mark ("Welcome to our site." has 20 units), and is not mostly links.
WHOLE_PAGE_MIN_SHARE = 0.9
WHOLE_PAGE_MIN_UNITS = 60
WHOLE_PAGE_MAX_LINK_DENSITY = 0.3
# extract._titled_post: a short root right after the page's own headline is the post when it has this much
# text (a photo or craft post's line of text; the near-empty floor otherwise is min_article_chars) ...
POST_MIN_UNITS = 40
POST_MAX_LINK_DENSITY = 0.3  # ... and few links (a line of links under a headline is navigation)
# extract._opens_post: a root that opens with the page's headline and holds nothing outside the headline's own
# block is the post even when its one sentence ends in a link to what it announces ("We have released the
# new issue (along with a new site)." is 0.44 links); its words outside links must still reach POST_MIN_UNITS,
# and more than half links is a row of links, not a sentence.
POST_OPENING_MAX_LINK_DENSITY = 0.5
POST_TITLE_MIN_WORDS = 3  # a post's headline has a few words; "Archive", "All crafts" name a section
# remove_by_selector.remove_post_tail: after a titled post (``opens_with_title``) that holds at least
# POST_MIN_UNITS of its own text, a short box (at most POST_TAIL_BOX_MAX_UNITS) following it that holds a form
# with a submit control (a posting step: "enter the code shown", the captcha's note) or a paragraph made of a
# label ending in a colon and an address written out, unlinked (a trackback's ping address) is the blog
# host's machinery, not the post. Long boxes (a comment list, a second article) are never judged.
POST_TAIL_BOX_MAX_UNITS = 400
POST_LABEL_MAX_WORDS = 8  # "Address for this entry:" is a label; a sentence ending in a colon is longer
