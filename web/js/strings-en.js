// English strings of the teaching demo (keys: see i18n.js). Text with markup is trusted static HTML.

export const en = {
    'doc.title': 'posenc — positional encodings, worked live',
    'site.title': 'Positional encodings, worked live',
    'skip': 'Skip to content',
    'lang.group': 'Language',
    'nav.label': 'Contents',
    'nav.why': '1. Why position',
    'nav.sin': '2. Sinusoidal',
    'nav.learned': '3. Learned',
    'nav.rope': '4. RoPE',
    'nav.alibi': '5. ALiBi',
    'nav.compare': '6. Comparison',
    'nav.grid': '7. Image grids',
    'nav.rel': '8. Relative methods',
    'intro': 'Attention by itself cannot tell in which order its tokens arrived. This page walks through the usual ' +
        'ways of supplying order — sinusoidal, a learned table, RoPE and ALiBi — with small examples; the last two ' +
        'sections take RoPE onto an image grid and set the other relative methods (T5, Shaw, Transformer-XL) beside ' +
        'ALiBi. Every number and chart here was computed in float64 by this server\'s API (<code>posencd</code>); ' +
        'the page only draws the answers. Open <b>Show request</b> under a figure to see exactly what was sent.',
    'req.show': 'Show request',
    'ex.show': 'Show answer',
    'loading': 'Computing…',
    'err.generic': 'The server refused the request: {msg}',
    'err.network': 'Cannot reach the server: {msg}',

    'why.title': '1. Why position has to be added',
    'why.p1': 'Self-attention only scores how related tokens are to each other. Reorder the input and the output ' +
        'is reordered the same way, but every token receives the same bundle of weights as before ' +
        '(<i>permutation equivariance</i>): unlike an RNN, a Transformer reads all tokens at once. Below, the same ' +
        'words go in two orders, "the dog bites the man" and "the man bites the dog": only the order says who bit whom.',
    'why.method': 'Position method',
    'why.m.none': 'none',
    'why.m.sinusoidal': 'sinusoidal (added to q, k)',
    'why.m.rope': 'RoPE (rotation)',
    'why.m.alibi': 'ALiBi (distance penalty, m = 1/2)',
    'why.sentA': 'Sentence A',
    'why.sentB': 'Sentence B',
    'why.matrix': 'Attention weights — rows: query, columns: key',
    'why.focus': 'What "{verb}" gives the two nouns',
    'why.col.sent': 'sentence',
    'why.same': 'Identical in both sentences: without position the model cannot tell them apart.',
    'why.diff': 'Different between the sentences: word order now reaches the result.',
    'why.note': 'The token vectors are made-up 4-D values, and each token\'s vector serves as both its query and its ' +
        'key (no projections). <code>POST /attention</code> does the computing.',
    'why.two': 'Position can enter in two places. (1) Added to the input: a position vector is added to the token ' +
        'embedding before the first layer (sinusoidal, learned). (2) Inside attention, in every layer: queries and ' +
        'keys are rotated by position (RoPE), or a distance bias is added to the scores (ALiBi, T5). "This token is ' +
        '7th" is an <b>absolute</b> position, "that token is 3 back" a <b>relative</b> one; language mostly cares ' +
        'about the relative kind.',
    'tok.dog': 'dog',
    'tok.man': 'man',
    'tok.bite': 'bites',
    'tok.the': 'the',

    'sin.title': '2. Sinusoidal encoding (the original Transformer)',
    'sin.p1': 'Think of a clock\'s second, minute and hour hands. Each dimension pair (2i, 2i+1) is a hand turning at ' +
        'its own speed: at position p pair i holds sin(p·ω<sub>i</sub>) and cos(p·ω<sub>i</sub>), with ' +
        'ω<sub>i</sub> = base<sup>−2i/d</sup>. Fast hands separate nearby positions, slow hands distant ones; the ' +
        'wavelengths grow geometrically from 2π towards base·2π. The vector is added to the token embedding before ' +
        'the first layer.',
    'sin.d': 'Dimension d_model',
    'sin.base': 'base',
    'sin.len': 'Positions',
    'sin.heat': 'Position × dimension. The left (fast pairs) changes quickly, the right (slow pairs) slowly.',
    'ax.dim': 'dimension',
    'ax.pos': 'position',
    'sin.clock': 'The clock-hands view',
    'sin.pos': 'Position p',
    'sin.clockNote': 'Each hand uses its pair\'s (sin, cos) values as coordinates: at position 0 it points to 12 ' +
        'o\'clock and it turns clockwise. The tokens per full turn (wavelength) come from <code>/rope</code>\'s ' +
        '<code>bands</code>, which use the same frequencies.',
    'sin.dial': 'pair {j} (dims {a}, {b})',
    'sin.dialWave': 'one turn = {w} tokens',
    'sin.why': 'The paper\'s authors found learned position embeddings worked about as well, and chose sinusoids ' +
        'because they might extrapolate to sequences longer than those seen in training. Later work (the ALiBi ' +
        'paper among others) showed that this extrapolation is limited in practice — see section 6.',
    'ex1.title': 'Exercise 1',
    'ex1.q': 'Find the d = 4 sinusoidal vector of position 4. Pair 0 has frequency 1, pair 1 has 1/100.',
    'ex1.table': 'd = 4, positions 0–3',
    'ex1.a': '(sin 4, cos 4, sin 0.04, cos 0.04) ≈',
    'ex1.a2': 'The first two values (the fast hand) swing widely from position to position; the last two (the slow ' +
        'hand) have hardly moved yet.',

    'learned.title': '3. Learned position embeddings',
    'learned.p1': 'A table holds one vector per position and is trained like the token embeddings; GPT-1 and BERT ' +
        'did this. It is simple and learns whatever pattern the data needs, but a position past the end of the ' +
        'table has no vector at all, and relations such as "3 apart" must be learned separately for every pair of ' +
        'positions. <code>demo-512x64</code> below is a 512 × 64 example table built into the server (fixed ' +
        'pseudo-random 0.02·N(0,1)): not trained values, but the same shape and the same limit.',
    'learned.heat': 'The whole table: rows = positions 0–511, columns = dimensions 0–63',
    'learned.unavailable': 'This server has no learned-table support (/learned) yet. The other sections work as usual.',
    'learned.shape': 'table {name}: {rows} × {cols}',
    'ex4.title': 'Exercise 4',
    'ex4.q': 'A model has a learned position table for at most 512 positions. What happens when it gets 600 tokens?',
    'ex4.btn': 'Feed 600 tokens',
    'ex4.friendly': 'There is no row for position {pos}. Table {table} has only {rows} rows, so positions {pos}–599 ' +
        'of a 600-token input cannot be encoded as they are. Truncate the input, or extend the table and train further.',
    'ex4.ok': 'This server did not refuse 600 tokens (unexpected).',
    'ex4.raw': 'The server\'s own answer (422 problem+json)',
    'ext.title': 'Going past the table (extend)',
    'ext.mode': 'Method',
    'ext.error': 'error — refuse (default)',
    'ext.copy': 'copy — repeat from the start',
    'ext.interpolate': 'interpolate — resample to 600 rows',
    'ext.dim': 'Dimension',
    'ext.orig': 'original table (positions 0–511)',
    'ext.new': 'extended (positions 0–599)',
    'ext.end': 'end of table (512)',
    'ext.zoom': 'Zoomed on positions 400–600; drag the bar below or scroll over the chart to change the range.',
    'ext.zoomCopy': 'Left: the start of the table (positions 0–87). Right: past its end (positions 512–599). The two curves are the same.',
    'ext.win0': 'positions 0–87 (table)',
    'ext.win1': 'positions 512–599 (copy)',
    'ext.n.error': 'The default, error, refuses from position 512 on — the same 422 as in exercise 4.',
    'ext.n.copy': 'copy gives position p the row p mod 512 (how Longformer initialised 4,096 positions from a 512 ' +
        'table). Position 512 gets the vector of position 0, so without further training the two are ' +
        'indistinguishable.',
    'ext.n.interpolate': 'interpolate resamples the table to 600 rows (row i taken at source coordinate i·511/599). ' +
        'Every position\'s vector shifts a little, so this too needs further training.',

    'rope.title': '4. RoPE: position as rotation',
    'rope.p1': 'Split the query and key into pairs of dimensions, each a 2-D plane. In every plane the query at ' +
        'position m is rotated by m·θ<sub>j</sub> and the key at position n by n·θ<sub>j</sub>. Rotations keep ' +
        'lengths and add angles (R(a)<sup>T</sup>R(b) = R(b−a)), so the dot product of the rotated vectors depends ' +
        'on m − n only: rotated by absolute position, scored by relative position. Values are not rotated, and ' +
        'since it is applied in every layer the position signal does not fade in deep layers (LLaMA, Llama 2).',
    'rope.rot': 'One 2-D pair: q = (1, 2), k = (3, 1), θ = 0.5',
    'rope.m': 'Query position m',
    'rope.n': 'Key position n',
    'rope.readout': 'm − n = {d}, score q·k = {s}',
    'rope.try': 'Try:',
    'rope.lq0': 'q (unrotated)',
    'rope.lk0': 'k (unrotated)',
    'rope.lq': 'q rotated by m·θ',
    'rope.lk': 'k rotated by n·θ',
    'rope.w1': 'Worked example 1: q = k = (1, 0), θ = 0.5 — the score is cos((m − n)·θ)',
    'rope.col.pos': '(m, n)',
    'rope.col.diff': 'm − n',
    'rope.col.score': 'score',
    'rope.w1n': 'Two apart gives the same score wherever the pair sits in the sentence; four apart gives another.',
    'rope.w2': 'Worked example 2: q = (1, 2), k = (3, 1), θ = 0.5',
    'rope.w2n': '(0, 0) is the unrotated dot product, 5. (2, 0), (5, 3) and (9, 7) are all two apart and score the ' +
        'same; in (3, 5) the key comes <b>after</b> the query, m − n = −2, and the score is entirely different: ' +
        'RoPE also tells before from after.',
    'ex2.title': 'Exercise 2',
    'ex2.q': 'With q = k = (1, 0) and θ = 0.5, what is the score at positions (10, 4)? Move m and n below to check.',
    'ex2.a': 'Six apart → cos(3) ≈ {v}. Positions (6, 0) give the same, {w}.',
    'decay.title': 'Long-term decay (RoFormer Figure 2)',
    'decay.hd': 'head_dim',
    'decay.base': 'base',
    'decay.max': 'Max distance',
    'decay.ub': 'RoFormer Fig. 2 curve (Σ|S_j|, 1 at 0)',
    'decay.mc': 'mean cos(r·θⱼ) (a score ÷ d)',
    'ax.dist': 'relative distance r',
    'ax.decay': 'scaled to 1 at distance 0',
    'decay.note': 'These are two different quantities. RoFormer\'s inequality (§3.4.3) reads |score| ≤ ' +
        '(max<sub>j</sub> |h<sub>j+1</sub> − h<sub>j</sub>|) · Σ<sub>j</sub> |S<sub>j</sub>| with S<sub>j</sub> = ' +
        'Σ<sub>k&lt;j</sub> e<sup>i·r·θ<sub>k</sub></sup>, where h<sub>j</sub> comes from q and k. The thick curve drops ' +
        'the first factor, which depends on q and k, and plots (1/(d/2))·Σ|S<sub>j</sub>| divided by its value at ' +
        'distance 0, (d/2+1)/2. On its own it is therefore <b>not</b> a bound on the score of any q, k: it only shows how ' +
        'the bound shrinks with distance. The thin curve is an actual score (q = k = (1, …, 1)); it oscillates and goes ' +
        'negative.',
    'decay.above': 'At these settings the thin curve (an actual score) lies above the thick one at {above} of the {n} ' +
        'plotted distances.',
    'decay.neg': 'It first goes negative at r = {neg}.',
    'decay.noneg': 'It has no negative value up to r = {max}; a larger maximum distance shows where it turns negative.',
    'decay.aria': 'Two curves over distances 0 to {max}. The actual score lies above the thick curve at {above} distances.',
    'bands.title': 'Frequency bands and context-extension scalings',
    'bands.p': 'Pair j turns at θ<sub>j</sub> = base<sup>−2j/d</sup> and needs 2π/θ<sub>j</sub> tokens (its ' +
        'wavelength) for one full turn. A pair whose wavelength exceeds the training length never completed a turn ' +
        'in training, so longer inputs show it angles it has never seen. The scalings mostly slow such pairs down ' +
        'further, keeping the angles within the trained range.',
    'bands.type': 'Scaling',
    'bands.factor': 'factor',
    'bands.orig': 'Original length',
    'bands.cur': 'Current length (dynamic, longrope)',
    'bands.hd': 'head_dim',
    'bands.base': 'base',
    'bands.none': 'no scaling',
    'bands.scaled': 'with {type}',
    'bands.origLine': 'original length',
    'ax.pair': 'pair j',
    'ax.wave': 'wavelength (tokens, log)',
    'bands.summary': 'attention_factor = {af} · pair classes: {classes}',
    'bands.npairs': '{n} pairs',
    'bands.pairs': 'pairs {a}–{b}',
    'bands.same': 'as before (×1)',
    'bands.slower1': 'all {x} slower',
    'bands.slower': '{a} to {b} slower',
    'cls.extrapolate': 'kept (extrapolate)',
    'cls.blend': 'blended',
    'cls.interpolate': 'interpolated',
    'cls.high': 'high (kept)',
    'cls.medium': 'medium (joined)',
    'cls.low': 'low (slowed)',
    'cls.short': 'short list',
    'cls.long': 'long list',
    'cls.unchanged': 'no classes',
    'sc.name.default': 'none (plain RoPE)',
    'sc.name.linear': 'linear (PI)',
    'sc.name.ntk': 'NTK',
    'sc.name.dynamic': 'dynamic NTK',
    'sc.name.yarn': 'YaRN',
    'sc.name.longrope': 'LongRoPE',
    'sc.name.llama3': 'Llama 3',
    'sc.default': 'No scaling: plain RoPE.',
    'sc.linear': 'PI (position interpolation): every pair turns factor times slower. It is the same as dividing ' +
        'positions by factor, so the fast pairs lose resolution too.',
    'sc.ntk': 'NTK-aware: base becomes base·α<sup>d/(d−2)</sup>. Fast pairs stay nearly as they were; the slower a ' +
        'pair, the more it is slowed.',
    'sc.dynamic': 'Dynamic NTK: enlarges base only once the current length exceeds the original. Set "Current ' +
        'length" above the original length to see it act.',
    'sc.yarn': 'YaRN: short-wavelength pairs are kept (extrapolate), long ones are interpolated by factor, those in ' +
        'between are blended, and attention_factor corrects the attention temperature.',
    'sc.longrope': 'LongRoPE: slows each pair by its own searched factor (short_factor and long_factor lists), ' +
        'using the long list once the current length exceeds the original. This demo sends an example list that ' +
        'rises evenly from 1 to factor.',
    'sc.llama3': 'Llama 3: pairs with wavelength above original/low_freq_factor (low) are slowed by factor, those ' +
        'below original/high_freq_factor (high) are kept, and the ones in between (medium) are joined smoothly.',
    'slow.title': 'A correction: the slowest pair at head_dim 128',
    'slow.p': 'Some write-ups state that for d = 128 the slowest pair (j = 63) has θ ≈ 0.0001 and a period of about ' +
        '62,832 tokens. The server computes θ<sub>63</sub> = 10000<sup>−126/128</sup> ≈ {theta} and a period of ' +
        '≈ {wl} tokens. 62,832 is 2π·10000, the limit as d grows without bound.',
    'rope.caveat': 'RoPE too can degrade at large angles it never saw in training (very long distances). All the ' +
        'scalings above are variations of one idea: keep the angles inside the range seen in training.',

    'alibi.title': '5. ALiBi: a penalty that grows with distance',
    'alibi.p1': 'ALiBi writes "nearby words matter more" straight into the formula. There are no position vectors: ' +
        'a penalty −m·(i − j), proportional to distance, is added to the attention scores. Each head has its own ' +
        'slope m: when the head count n is a power of two, the slopes form a geometric sequence starting at ' +
        '2<sup>−8/n</sup> with that same ratio (8 heads: 1/2, 1/4, …, 1/256). For other head counts the rule differs ' +
        '(see the chart below). Steep heads look at their neighbours only, gentle ones far away. The ' +
        'paper also tried learned slopes and found they extrapolated worse.',
    'alibi.heads': 'Heads',
    'alibi.pow2': '{n} heads: a power of two, so the slopes start at 2<sup>−8/{n}</sup> ≈ {s0} and shrink by that ' +
        'same ratio (last {last}).',
    'alibi.mixed': '{n} heads is not a power of two. The ALiBi authors\' code (and BLOOM) first takes the geometric ' +
        'sequence of the largest power of two below it, p = {p}: {s0}, …, {last}; the other {rest} slopes come from ' +
        'the sequence for {p2} heads, 2<sup>−8k/{p2}</sup>, at the odd places k = 1, 3, 5, … only: {extra}. That is ' +
        'why {jump} follows {last}: the slopes are two interleaved sequences, not one geometric sequence.',
    'alibi.mpt': 'MPT\'s rule gives the same slopes with alibi_bias_max = 8 (its default).',
    'alibi.rule': 'Rule',
    'alibi.slopes': 'Slope m per head',
    'ax.head': 'head',
    'ax.slope': 'slope m',
    'ex3.title': 'Exercise 3',
    'ex3.q': 'With 16 ALiBi heads, what is the first head\'s slope? And the next ones?',
    'ex3.a': '2<sup>−8/16</sup> = 2<sup>−0.5</sup> ≈ {s0}, then {s1}, {s2}, … shrinking by the same ratio.',
    'bias.title': 'The bias matrix',
    'bias.head': 'Head',
    'bias.len': 'Length',
    'bias.mode': 'Mode',
    'bias.causal': 'causal (future masked)',
    'bias.symmetric': 'symmetric (both ways)',
    'bias.cap': 'Bias of head {h} (m = {m}). Empty cells are masked future tokens.',
    'ax.key': 'key j',
    'ax.query': 'query i',
    'bars.title': 'Softmax bars: the query at the fourth position',
    'bars.p': 'Its raw scores against the tokens so far are (2, 1, 3, 2), the last one being itself; the distance ' +
        'bias is m × (−3, −2, −1, 0).',
    'bars.s0': 'no bias (m = 0)',
    'bars.s1': 'm = 1/2',
    'bars.s2': 'm = 1/256',
    'bars.s3': 'm = {m} (yours)',
    'bars.custom': 'Your slope m',
    'bars.key0': 'key 0 (distance 3)',
    'bars.key1': 'key 1 (distance 2)',
    'bars.key2': 'key 2 (distance 1)',
    'bars.key3': 'key 3 (itself)',
    'bars.head': 'slope',
    'bars.kh': 'key {k}',
    'bars.kd': 'd = {d}',
    'bars.kself': 'itself',
    'bars.n': 'With m = 1/2 the distant first token loses most of its weight and the near ones gain. With ' +
        'm = 1/256 the bias hardly matters and the head looks evenly far back.',
    'alibi.result': 'Reported in the paper: a 1.3B model trained at length 1,024 reached, on inputs of length 2,048, ' +
        'the perplexity of a sinusoidal model trained at 2,048, while training 11% faster with 11% less memory — ' +
        '"train short, test long".',

    'cmp.title': '6. Comparison: past the trained length',
    'cmp.p1': 'Take a training length of L = 512 and grow the input length N. The server answers at once what each ' +
        'method does at the last position, N − 1.',
    'cmp.n': 'Input length N',
    'cmp.col.method': 'method',
    'cmp.col.where': 'where position enters',
    'cmp.col.kind': 'absolute / relative',
    'cmp.col.live': 'at position N − 1',
    'cmp.where.input': 'added to the input',
    'cmp.where.rotate': 'q, k rotated in every layer',
    'cmp.where.bias': 'bias on the scores in every layer',
    'cmp.abs': 'absolute',
    'cmp.rel': 'relative',
    'cmp.m.sin': 'sinusoidal',
    'cmp.m.learned': 'learned (512 rows)',
    'cmp.m.rope': 'RoPE (head_dim 64)',
    'cmp.m.alibi': 'ALiBi (m = 1/2)',
    'cmp.m.t5': 'T5 relative buckets',
    'cmp.sin.in': 'a vector, within the trained range (first two values {a}, {b})',
    'cmp.sin.out': 'a vector is computed (first two values {a}, {b}), but the model never saw this position in training',
    'cmp.learned.in': 'row {p} exists in the table',
    'cmp.learned.out': 'no row — the server refuses with 422 ({detail})',
    'cmp.learned.detail': 'position {pos}, table of {rows} rows',
    'cmp.learned.na': 'not available on this server',
    'cmp.rope.in': 'all 32 pairs stay within the angles seen in training',
    'cmp.rope.out': '{k} of 32 pairs have wavelengths longer than L and enter angles never seen in training',
    'cmp.alibi': 'bias = −m·distance = {b} (distance {d}): same rule, just a larger penalty',
    'cmp.t5': 'bucket {b} (every distance past max_distance 128 shares the last bucket, 31)',
    't5.title': 'T5 buckets: far distances collapse into one',
    't5.series': 'bucket (unidirectional, 32 buckets, max_distance 128)',
    'ax.bucket': 'bucket',
    'flow.title': 'Where position enters',
    'flow.tok': 'token embeddings',
    'flow.add': '+ position vectors (sinusoidal, learned)',
    'flow.layer': 'Transformer layer × N',
    'flow.qk': 'queries · keys',
    'flow.rot': 'RoPE: rotate by position',
    'flow.bias': 'ALiBi, T5: distance bias on scores',
    'flow.sm': 'softmax · weighted sum',
    'cmp.choose': 'In practice: many open LLMs use RoPE (the LLaMA family above all). To find out what a model uses, ' +
        'look at its model card or config.json — the paste box in section 4 does exactly that. Knowing why ' +
        'long-context extension is separate work is usually enough.',
    'check.title': 'Check yourself',
    'check.q1': 'Without position information, what exactly can self-attention not tell apart?',
    'check.a1': 'Sentences made of the same tokens in different orders. Pick "none" in section 1: both sentences get ' +
        'the same weights.',
    'check.q2': 'RoPE rotates by absolute position. Why is it called a relative method?',
    'check.a2': 'Rotating the query by mθ and the key by nθ leaves only (m − n)θ in their dot product. In section 4, ' +
        '(2, 0), (5, 3) and (9, 7) scored the same.',
    'check.q3': 'Why does ALiBi give every head a different slope?',
    'check.a3': 'To have several fields of view at once: heads that look only at the next word and heads that take in ' +
        'distant context.',
    // 7
    'grid.title': '7. RoPE on an image: axial and mixed',
    'grid.p1': 'A vision Transformer cuts an image into H × W patches and uses them as tokens, so a position is a ' +
        '(row, column) pair rather than one number. The usual 2-D RoPE, <i>axial</i>, splits the pairs in two: one ' +
        'half turns with the row, the other with the column. RoPE-Mixed (Heo et al., ECCV 2024) gives every pair a ' +
        'row frequency and a column frequency, turns it by φ<sub>j</sub> = row·F[0][j] + col·F[1][j], and learns F. ' +
        'Either way the angles are linear in the coordinates, so the score of two patches depends only on their ' +
        'offset (Δrow, Δcol). Pick a query patch: the server computes its score to every patch (the keys) both ' +
        'ways, drawn in the shape of the image.',
    'grid.setup': 'head_dim 8 = 4 pairs (two neighbouring dims a pair, <code>interleaved</code>), positions [row, col]. ' +
        'Axial uses base 100: pairs 0 and 1 follow the row, pairs 2 and 3 the column, with frequencies 1 and 0.1 on ' +
        'each axis. Every patch gets the same vector as q and k: the patches\' contents are identical, so whatever ' +
        'changes the score is position.',
    'grid.rows': 'Rows H',
    'grid.cols': 'Columns W',
    'grid.qr': 'Query row',
    'grid.qc': 'Query column',
    'grid.qk': 'q = k',
    'grid.qk.rows': '(1,0, 1,0, ½,0, ½,0): pairs 0, 1 longer',
    'grid.qk.equal': '(1,0, 1,0, 1,0, 1,0): all four pairs length 1',
    'grid.preset': 'F for mixed',
    'grid.p.axial': 'the axial F ([[m, 0], [0, m]])',
    'grid.p.turn30': 'F turned by 30° (as RoPE-Mixed initialises it)',
    'grid.p.learned': 'a learned-looking F (made up)',
    'grid.p.custom': 'your own',
    'grid.f.caption': 'Frequency matrix F: rows = axes, columns = pairs j. The top two rows are the axis_freqs the ' +
        'server returned for the axial request; the bottom two are the freqs sent with the mixed request, and you can ' +
        'edit them.',
    'grid.f.corner': 'axis \\ pair',
    'grid.f.ar': 'axial <span class="sub">row</span>',
    'grid.f.ac': 'axial <span class="sub">column</span>',
    'grid.f.mr': 'mixed <span class="sub">row</span>',
    'grid.f.mc': 'mixed <span class="sub">column</span>',
    'grid.axial': 'axial',
    'grid.axialCap': '(each pair follows one axis)',
    'grid.mixed': 'mixed',
    'grid.mixedCap': '(each pair follows both axes)',
    'grid.how': 'Click a cell to make that patch the query (thick border). With the keyboard, focus a map and use the ' +
        'arrow keys, or the sliders above. The numbers in the cells and the tooltips are the server\'s scores; both ' +
        'maps share one colour scale.',
    'grid.patch': 'patch',
    'grid.noMap': 'no map: the request was refused',
    'grid.ax.col': 'column',
    'grid.ax.row': 'row',
    'grid.mapLabel': '{m} score map, query patch ({r}, {c}). Arrow keys move the query.',
    'grid.sel': 'Scores of query patch ({r}, {c})',
    'grid.col.key': 'key',
    'grid.col.delta': 'Δ (row, col)',
    'grid.row.self': 'itself',
    'grid.row.origin': 'top left',
    'grid.row.swap1': 'neighbour ①',
    'grid.row.swap2': 'neighbour ②',
    'grid.swap': 'Neighbours ① (Δ = {d1}) and ② (Δ = {d2}) are equally far from the query, √5. Axial gives {a} ' +
        'and {b}, mixed {c} and {d}.',
    'grid.swap.tie': 'Why axial ties here: with this q the row pairs and the column pairs are equally long and both ' +
        'axes have the same frequencies, so swapping rows and columns leaves the score unchanged.',
    'grid.notice': '<b>What to notice.</b> (1) The axial map is a plaid of horizontal and vertical bands: an axial ' +
        'score splits into a function of Δrow alone plus a function of Δcol alone. (2) The mixed map\'s bands run ' +
        'at a slant: one pair turns with the row and the column together, so the axes are coupled. Choose "the axial ' +
        'F" and the two maps become identical. (3) Move the query and the pattern moves with it: the score depends ' +
        'only on the offset. (4) (1, 2) and (2, 1) are the same distance but different offsets, and usually score ' +
        'differently.',
    'grid.p2': 'The order of the coordinates is up to the client: here the row comes first, as in Qwen2-VL and ' +
        'Pixtral, while RoPE-ViT puts the column (x) first. The server\'s <code>axes</code> also has ' +
        '<code>mrope</code> (the Qwen2-VL language model: time, row, column) and <code>pixtral</code>; the rules are ' +
        'under /rope <code>axes</code> in the <a href="/docs">API reference</a>.',

    // 8
    'rel.title': '8. Relative methods side by side: T5, ALiBi, Shaw, Transformer-XL',
    'rel.p1': 'These four methods add no position vector to the input. Instead, in every layer, they add to the ' +
        'attention score a function of how far the key is from the query; what differs is the shape of that ' +
        'function. The charts show, for a sentence of T tokens, what each method adds to a score as a function of ' +
        '<b>key − query</b>.',
    'rel.setup': 'To see the position term alone, k is the zero vector: the content term q·k is then 0 and the score ' +
        '<code>/attention</code> returns is the position term itself (scale = 1, causal = false). ALiBi\'s values ' +
        'are <code>/alibi</code>\'s bias and T5\'s bucket numbers come from <code>/t5/buckets</code>. The bias table ' +
        'and the embeddings are made up for the demo, not trained.',
    'rel.T': 'Sentence length T',
    'rel.K': 'Shaw\'s K (max_relative_position)',
    'ax.rel': 'key − query',
    'rel.t5': 'T5: one bias per bucket',
    'rel.t5.n': 'Distances are grouped into buckets and each bucket adds a learned value. 8 buckets (4 each way), ' +
        'max_distance 16: distances 0 and 1 get buckets of their own, farther ones are grouped on a log scale, so ' +
        '2–5 share one bucket and 6 or more the last one. Hence the steps, and the two directions use different ' +
        'buckets (bucket 4, "0 after the query", never occurs). The b above each bar is the bucket number.',
    'rel.alibi': 'ALiBi: a penalty proportional to distance',
    'rel.alibi.n': '−m·|key − query| with m = 1/2 (symmetric mode). Nothing is learned, and the line keeps falling ' +
        'straight with distance. In causal mode (section 5) the right half, keys after the query, is masked.',
    'rel.shaw': 'Shaw: a learned vector per clipped distance',
    'rel.shaw.n': 'key − query is clipped to −K…K and q is dotted with that distance\'s vector a<sup>K</sup>. Keys ' +
        'farther than K all share the edge vector, so the grey areas are flat. Here d = 1 and q = 1, so the score is ' +
        'the value of a<sup>K</sup> itself.',
    'rel.shawK': 'K = {K}: rows {neg} … {pos} of key_embeddings = {rows}',
    'rel.txl': 'Transformer-XL: a projected sinusoid of the distance',
    'rel.txl.n': 'The sine and cosine vector R(δ) of δ = query − key is projected by W<sub>R</sub> and dotted with ' +
        '(q + v). Here d = 4, W<sub>R</sub> = identity, base 16 (frequencies 1 and 1/4), q = (1, 1, 1, 1) and v = 0, so ' +
        'the score is sin δ + sin(δ/4) + cos δ + cos(δ/4): not clipped, and not steadily falling with distance. With ' +
        'causal = false, keys after the query use negative δ (as XLNet does).',
    'rel.clipped': 'clipped',
    'rel.bucket': 'bucket',
    'rel.bias': 'bias',
    'rel.numbers': 'The numbers behind the charts',
    'rel.read': 'Values for negative key − query are read from the last query\'s row (position T − 1), positive ones ' +
        'from the first query\'s row (position 0). For all four methods every diagonal holds one value, so any ' +
        'query would give the same numbers.',
    'rel.col.t5b': 'T5 bucket',
    'rel.col.t5': 'T5',
    'rel.col.alibi': 'ALiBi',
    'rel.col.shaw': 'Shaw',
    'rel.p2': 'Mind the signs: T5 and Shaw index by key − query, Transformer-XL by query − key (δ); every chart above ' +
        'puts key − query on its horizontal axis. Only ALiBi learns nothing; T5 and Shaw lump everything beyond a ' +
        'set distance into one value; Transformer-XL is a sinusoid, so it keeps oscillating far away.',

    'foot.api': 'API: <a href="/docs">/docs</a> · <a href="/openapi.yaml">openapi.yaml</a> · ' +
        '<a href="/limits">/limits</a> · <a href="/version">/version</a>',
    'foot.lib': 'Charts: Apache ECharts 6.1.0 with ZRender (Apache-2.0 and BSD-3-Clause, licences kept in <code>vendor/echarts/</code>). ' +
        'References: Vaswani et al. 2017 (arXiv 1706.03762), Su et al. 2021 RoFormer (2104.09864), Press et al. ' +
        '2021 ALiBi (2108.12409), Heo et al. 2024 RoPE-ViT (2403.13298), Raffel et al. 2020 T5 (1910.10683), ' +
        'Shaw et al. 2018 (1803.02155), Dai et al. 2019 Transformer-XL (1901.02860).',
    'foot.server': 'Server: {v}',
    // lesson steps, corrections, exercises, glossary
    'nav.ex': 'Exercises and terms',
    'ex.title': 'Exercises and glossary',
    'ex.p': 'The lesson\'s four exercises, in its order. Every answer is computed by the server.',
    'ex2.readout': 'positions ({m}, {n}), {d} apart → score {s}',
    'ex4.hint': 'The button really sends a 600-token request to the server. Think of the answer first, then press it.',
    'fix.particles.t': 'A correction: two sentences that differ by particles',
    'fix.particles': 'The Korean lesson says that without position the model cannot tell "개가 사람을 물었다" (the dog bit ' +
        'the man) from "사람이 개를 물었다" (the man bit the dog). But those two differ by their particles (개<b>가</b>·' +
        '사람<b>을</b> / 사람<b>이</b>·개<b>를</b>), not only by order: words with different particles are different ' +
        'tokens, so the inputs differ even without position. That is why the example above drops the particles. ' +
        'Conversely, "사람이 개를 물었다" and "개를 사람이 물었다" differ in order but mean the same: in Korean the ' +
        'particles mark who bit whom.',
    'fix.wave.t': 'A correction: wavelengths do not reach 2π·10000',
    'fix.wave': 'The lesson says the wavelengths grow geometrically "from 2π to 10000·2π". The slowest pair, ' +
        'j = d/2 − 1, has wavelength 2π·base<sup>(d−2)/d</sup>; 2π·base is only the limit as d grows without bound. ' +
        'At the settings above (d_model = {d}, base = {base}) the slowest pair, {j}, has wavelength {wl} tokens ' +
        '(exponent {e}), short of 2π·base ≈ {lim}. In the lesson\'s d = 4 example it is 2π·100 ≈ 628.',
    'lin.title': 'PE(p + k) is a linear function of PE(p): PE(p + k) = M·PE(p)',
    'lin.p': 'The paper\'s hypothesis, "the encoding at a fixed offset k is a linear function of the encoding", checked ' +
        'at d = 4. Per pair, sin((p+k)ω) = cos(kω)·sin(pω) + sin(kω)·cos(pω) and cos((p+k)ω) = −sin(kω)·sin(pω) + ' +
        'cos(kω)·cos(pω), so M is block-diagonal with a 2×2 rotation per pair, its entries read off PE(k). M depends ' +
        'on k only, not on p.',
    'lin.p0': 'Position p',
    'lin.k': 'Offset k',
    'lin.M': 'M (read off PE({k}))',
    'lin.pe': 'PE({p})',
    'lin.mpe': 'M·PE(p)',
    'lin.pek': 'PE({q}) (server)',
    'lin.n': 'M, PE(p) and PE(p + k) are the server\'s <code>/sinusoidal</code> values; only the M·PE(p) column is ' +
        'multiplied by the page. The last two columns agree.',
    'cross.p': 'With the cross term: score = (q·k)·cos((m − n)θ) + (q₁k₂ − q₂k₁)·sin((m − n)θ), here (m − n)θ = {d} × 0.5 = {a} rad.',
    'cross.api': 'the server\'s score of the rotated pair: {s}',
    'lay.title': 'The complex form, rotate_half, and the two pair layouts',
    'lay.p': 'Implementations differ in which two dimensions turn together. <b>interleaved</b> (adjacent (2j, 2j+1): the ' +
        'RoFormer paper, GPT-J, complex-number code) reads a pair as z<sub>j</sub> = q<sub>2j</sub> + i·q<sub>2j+1</sub> ' +
        'and multiplies it by e<sup>i·p·θ<sub>j</sub></sup>. <b>half</b> (first and second halves (j, j + d/2): Hugging ' +
        'Face Llama and most others) writes q′ = q ⊙ cos + rotate_half(q) ⊙ sin. The same q gives different vectors ' +
        'under the two, so weights and layout must match. Below: head_dim 4, base 100 (θ = 1, 0.1), q = (1, 2, 3, 4).',
    'lay.pos': 'Position p',
    'lay.complex': 'interleaved (complex form): z₀ = {z0}, z₁ = {z1}; e<sup>i·p·θ₀</sup> = {e0}, e<sup>i·p·θ₁</sup> = {e1}; ' +
        'rotated, z₀·e<sup>i·p·θ₀</sup> = {r0}, z₁·e<sup>i·p·θ₁</sup> = {r1}.',
    'lay.half': 'half (rotate_half form): pairs (q₀, q₂), (q₁, q₃), i.e. z₀ = {z0}, z₁ = {z1}; rotate_half(q) = {rh}; ' +
        'cos = {c}, sin = {s}; the pairs of q ⊙ cos + rotate_half(q) ⊙ sin are {r0}, {r1}.',
    'lay.norm': 'Length kept: |q| = {q}; rotated, interleaved {il} and half {hf}. A rotation does not change length ' +
        '(all three are square roots of dot products the server computed).',
    'lay.n': 'The two forms are one formula: in the half layout, read pair j as the complex number q<sub>j</sub> + ' +
        'i·q<sub>j+d/2</sub>, and the rotate_half formula multiplies it by e<sup>i·p·θ<sub>j</sub></sup>. Only the choice ' +
        'of pairs differs.',
    'fix.alibi.t': 'A correction: ALiBi\'s slope rule',
    'fix.alibi': 'The lesson says "with n heads, a geometric sequence starting at 2<sup>−8/n</sup>". That holds only ' +
        'when n is a power of two; otherwise the paper\'s code and BLOOM join two sequences. Set 12 heads to see a ' +
        '0.707 bar follow 0.0039, with the reason, above.',
    'fix.alibi.btn': 'Show 12 heads',
    'bars.scores': 'Scores before softmax: raw scores (2, 1, 3, 2) + bias (computed by the server)',
    'terms.title': 'Glossary',
    'term.pe': 'positional encoding',
    'term.pe.d': 'How a model learns which place a token holds: a vector added to the input, or queries and keys rotated, or a bias added to the scores inside attention.',
    'term.abs': 'absolute position',
    'term.abs.d': 'The index itself, "this token is 7th". Sinusoids and learned tables encode it.',
    'term.rel': 'relative position',
    'term.rel.d': 'The difference of two positions, "that token is 3 back". RoPE, ALiBi and T5 make scores depend on it alone.',
    'term.perm': 'permutation equivariance',
    'term.perm.d': 'Reorder the input and the output is reordered the same way. Self-attention without position has it.',
    'term.extrap': 'length extrapolation',
    'term.extrap.d': 'Handling inputs longer than in training. Learned tables cannot; ALiBi does well; RoPE needs a scaling.',
    'term.wave': 'wavelength',
    'term.wave.d': 'Tokens a pair needs for one full turn, 2π/θ.',
    'term.invfreq': 'frequency (inv_freq, θ)',
    'term.invfreq.d': 'The angle (radians) pair j turns per position, base<sup>−2j/d</sup>; base is also called rope_theta.',
    'term.rot': 'rotation',
    'term.rot.d': 'Turning a vector about the origin of a plane. Lengths are kept and angles of two rotations add.',
    'term.layout': 'pair layout',
    'term.layout.d': 'Which two dimensions RoPE turns together: interleaved (2j, 2j+1) or half (j, j + d/2).',
    'term.slope': 'slope (m)',
    'term.slope.d': 'In ALiBi, what a head subtracts from the score per token of distance.',
    'term.bucket': 'bucket',
    'term.bucket.d': 'T5\'s bins of relative distance: one per distance nearby, log-spaced farther, one for all beyond max_distance.',
    'term.interp': 'interpolation',
    'term.interp.d': 'Squeezing a long input\'s positions into the trained range. PI slows every pair; YaRN and Llama 3 the slow ones.',
    'term.softmax': 'softmax',
    'term.softmax.d': 'Turns scores into weights that sum to 1; adding one constant to every score changes nothing.',
    'term.headdim': 'head_dim',
    'term.headdim.d': 'The query/key size of one attention head. RoPE turns head_dim/2 pairs.',
    'ax.weight': 'weight',
    'ax.relval': 'added to the score',
    'ext.yname': 'value of dim {d}',
    'aria.general': 'A chart. ',
    'aria.s.count': '{seriesCount} series. ',
    'aria.s.name': 'series "{seriesName}": ',
    'aria.d.all': 'values: ',
    'aria.d.part': 'first {displayCnt} values: ',
    'aria.heat': 'Heat map: {rows} rows ({yName}) × {cols} columns ({xName}), colours from {min} to {max}. ',
    'alibi.r.press': 'paper (press)',
    'alibi.r.mpt': 'MPT (mpt)',
    'lay.pair': 'pair',
    'lay.at': 'at {p}',
    'slow.shared': 'the same request as the bands chart\'s "no scaling" one: its answer is reused',
    'budget.title': 'The angle budget: how far each pair turned in training, and at a long position',
    'budget.p': 'Per pair, the turns made up to the training length L (L / wavelength) against the turns at position ' +
        'N (N / wavelength). A pair that turned at least once in training has seen every angle; a slow pair that ' +
        'never completed a turn only saw angles up to L·θ, and turning further at N shows it an angle it never saw. ' +
        'The scalings slow such pairs back within their training range. L is "Original length", N is "Current length".',
    'ax.turns': 'turns (log)',
    'budget.trained': 'in training (L = {L})',
    'budget.plain': 'at N = {N}, no scaling',
    'budget.scaled': 'at N = {N}, {type}',
    'budget.one': 'one turn',
    'budget.note': 'Pairs that made less than one turn in training and turn further at N = {N}: {a} without scaling, ' +
        '{b} with {type}.',
    'budget.temp': 'attention_factor = {af}: Hugging Face multiplies cos and sin by it, so q·k scores grow {af2}-fold ' +
        '(YaRN\'s temperature correction).',
};
