// Strings of the config box (config.js) and the context heat map (ctxheat.js), both languages: kept apart so that neither strings file passes
// 600 lines. i18n.js merges them into STRINGS.ko and STRINGS.en.

export const cfgKo = {
    'cfg.title': '모델의 config.json 붙여넣기: 층마다 어떤 위치 방식인가',
    'cfg.p': 'Hugging Face 모델의 <code>config.json</code>을 붙여 넣으세요(멀티모달 래퍼도 됩니다). 서버의 ' +
        '<code>POST /model/method</code>가 층마다 위치 방식(학습된 표, ALiBi, T5 버킷, 변형을 포함한 RoPE, 없음)을 ' +
        '답하고, 같은 답의 층을 한 종류로 묶어 그 종류를 계산하는 경로와 바로 보낼 수 있는 요청을 함께 줍니다. ' +
        '띠의 칸 하나가 층 하나이며, 종류를 고르면 그 값을 그립니다. 아래 버튼은 공개 설정에서 서버가 읽는 키만 옮긴 ' +
        '예시입니다.',
    'cfg.model': '모델 종류 {type}, 층 {n}개({src}에서 읽음), 위치 방식 {k}가지:',
    'cfg.stripLabel': '층마다 한 칸, 위치 방식에 따라 색칠',
    'cfg.layer': '층',
    'cfg.layers': '층 {r} (모두 {n}개)',
    'cfg.m.learned_absolute': '학습된 표',
    'cfg.m.alibi': 'ALiBi',
    'cfg.m.t5_relative': 'T5 버킷',
    'cfg.m.sinusoidal': '사인 표',
    'cfg.m.rope': 'RoPE',
    'cfg.m.none': '위치 없음',
    'cfg.stack.encoder': '인코더, 양방향',
    'cfg.stack.decoder': '디코더, 인과',
    'cfg.len.seq': '시퀀스 길이 (seq_len)',
    'cfg.len.rel': '그릴 가장 큰 |키 − 쿼리|',
    'cfg.fromField': '길이 입력 칸',
    'cfg.ax.key': '키 위치',
    'cfg.ax.bias': '점수에 더해지는 편향',
    'cfg.alibi.sum': '마지막 쿼리(위치 {q})에서 각 키로 더해지는 편향이며 헤드마다 선 하나입니다. 기울기에 거리를 곱하고 ' +
        '부호를 바꾼 값입니다. 기울기는 헤드 1의 {a}부터 헤드 {n}의 {b}까지입니다.',
    'cfg.t5.sum': '버킷 {nb}개, max_distance {md}: 가까운 오프셋은 하나씩 버킷을 받고, 먼 오프셋은 로그로 넓어지는 버킷을 ' +
        '나눠 쓰며, max_distance부터는 방향마다 마지막 버킷에 모두 들어갑니다.',
    'cfg.note.rope': 'RoPE: 이 층 {layers}개에서는 q와 k를 회전합니다. 차트는 짝마다 모델의 스케일링을 적용한 파장을 ' +
        '같은 base의 평범한 RoPE와 견줍니다.',
    'cfg.note.mrope': 'M-RoPE: 이 층 {layers}개에서는 q와 k를 회전하되, 짝들을 시간(t)·높이(h)·너비(w) 세 축에 나눠 ' +
        '줍니다. 짝은 자기 축의 좌표만큼 돕니다. 차트는 짝마다 주파수를 그 짝의 축 색으로 보여 줍니다.',
    'cfg.mrope.sum': '축마다 짝 수: t {t}, h {h}, w {w}. 텍스트 토큰은 세 좌표가 모두 자기 위치라서, 텍스트에서는 ' +
        'base {base}의 평범한 RoPE와 똑같이 돕니다. 이미지·비디오 토큰은 축마다 다른 좌표를 받습니다.',
    'cfg.axis.0': '시간 (t)',
    'cfg.axis.1': '높이 (h)',
    'cfg.axis.2': '너비 (w)',
    'cfg.ax.invfreq': 'inv_freq (토큰당 라디안, 로그)',
    'cfg.note.alibi': 'ALiBi: 벡터를 더하거나 돌리지 않습니다. 이 층 {layers}개에서 헤드마다 점수에 선형 벌점을 더합니다.',
    'cfg.note.t5_relative': 'T5: 헤드마다 버킷 하나에 편향 하나를 학습합니다. 경로는 오프셋마다 어느 버킷에 드는지를 ' +
        '계산합니다(편향 자체는 가중치라 config.json에 없습니다).',
    'cfg.note.sinusoidal': '고정된 사인·코사인 표가 층 0 앞에서 임베딩에 더해집니다(이 층 {layers}개). ' +
        '<code>request</code>를 <code>POST /sinusoidal</code>에 보내면 Hugging Face가 만드는 표가 나옵니다: ' +
        'convention, layout, 그리고 첫 토큰이 읽는 행(offset)이 모델마다 다릅니다.',
    'cfg.note.learned_absolute': '학습된 표는 층 0 앞에서 토큰 임베딩에 더해집니다. 그 숫자는 모델의 가중치이고 ' +
        'config.json에는 없어서 여기서는 그리지 않습니다. <code>PUT /tables/&lt;name&gt;</code>으로 표를 저장하면 ' +
        '<code>POST /learned</code>가 그것으로 계산합니다(3절은 내장 예시 표로 이렇게 합니다).',
    'cfg.note.none': '이 층 {layers}개는 위치 정보를 더하지 않습니다. 이 층의 어텐션은 다른 층이 은닉 상태에 남긴 것(과 ' +
        '인과 마스크)으로만 순서를 봅니다.',
    'cfg.note.none.seq': '이 층 {layers}개는 어텐션이 아닌 {mixer} 블록이라 위치 입력을 받지 않습니다. 시퀀스를 따라 ' +
        '상태(또는 짧은 합성곱 창)를 이어 가며 읽으므로, 순서는 위치 인코딩이 아니라 읽는 방식에서 나옵니다.',
    'cfg.note.none.mlp': '이 층 {layers}개는 {mixer} 블록으로 토큰끼리 섞지 않으므로 위치가 작용할 곳이 없습니다.',
    'cfg.mixer.attention': '어텐션',
    'cfg.mixer.mamba': 'Mamba',
    'cfg.mixer.conv': '합성곱',
    'cfg.mixer.linear_attention': '선형 어텐션',
    'cfg.mixer.recurrent': '순환',
    'cfg.mixer.mlp': 'MLP',
    'cfg.mixer.moe': 'MoE',
    'cfg.mixer.rwkv': 'RWKV',
    'cfg.mixer.xlstm': 'xLSTM',
    'cfg.mixer.linear': '선형 사상',
    'cfg.mixer.none': '항등: 어텐션·FFN 없음',
    'cfg.label': 'config.json',
    'cfg.run': '계산',
    'cfg.field': '항목',
    'cfg.value': '값',
    'cfg.source': '읽은 곳',
    'cfg.badjson': 'JSON: 붙여 넣은 글이 올바른 JSON 형식이 아닙니다.',
    'ctx.title': '긴 문맥을 눈으로: 실제 크기의 점수 지도',
    'ctx.p': '실제 모델 크기(head_dim 64/128, 위치 수천 개)에서 쿼리 위치(행)와 키 위치(열)마다 RoPE 점수를 그립니다. ' +
        '0부터 N − 1까지 고르게 뽑은 위치 최대 256개로 만든 격자이며, 요청 하나로 계산해 float32 .npy로 받습니다. ' +
        'q와 k는 모든 성분이 1/√head_dim인 같은 벡터라 회전 전 점수는 1이고, 지도는 회전만이 점수에 하는 일을 보여 줍니다. ' +
        '학습 길이 L과 스케일링을 바꿔 보세요. factor는 N / L입니다.',
    'ctx.L': '학습 길이 L',
    'ctx.N': '보여 줄 길이 N',
    'ctx.q': '쿼리 위치',
    'ctx.k': '키 위치',
    'ctx.line': '거리 = L ({L})',
    'ctx.note': '점선 아래 칸은 키와 쿼리가 L = {L}보다 멀리 떨어진 곳으로, 인과 지도(N = {N})의 {share}% 차지입니다. ' +
        'factor f = N / L = {f}.',
    'ctx.sc.default': '스케일링이 없으면 점선 아래 거리는 학습에서 본 적이 없습니다. 학습 동안 한 바퀴도 돌지 못한 느린 짝이 ' +
        '거기서 처음 보는 각도에 닿습니다.',
    'ctx.sc.linear': 'PI는 모든 각도를 f로 나눕니다. 길이 L의 스케일링 없는 지도를 N까지 늘린 것과 같아서 처음 보는 각도는 ' +
        '없지만, 가까운 위치끼리는 f배 구별하기 어려워집니다.',
    'ctx.sc.ntk': 'NTK는 base를 키웁니다. 빠른 짝(대각선 근처의 잔무늬)은 거의 그대로이고 느린 짝일수록 더 늦춰지므로 ' +
        '먼 칸이 가장 많이 바뀝니다.',
    'ctx.sc.dynamic': 'Dynamic NTK는 현재 길이(여기서는 seq_len = N)와 factor로 NTK base를 정합니다. 지도 전체에 같은 ' +
        'base가 쓰이며, N이 L 이하면 스케일링 없는 RoPE와 같습니다.',
    'ctx.sc.yarn': 'YaRN은 빠른 짝은 그대로 두고 느린 짝은 f로 보간하며 그 사이는 섞습니다. 또 점수에 attention_factor²를 ' +
        '곱하므로 색 범위가 1보다 넓어집니다.',
    'ctx.sc.longrope': 'LongRoPE는 seq_len = N이 L보다 길어서 긴 목록의 계수로 짝마다 따로 늦춥니다(이 데모의 목록은 ' +
        '1에서 f까지 고르게 오릅니다). 점수에는 attention_factor²가 곱해집니다.',
    'ctx.sc.llama3': 'Llama 3는 파장이 L보다 긴 짝(low_freq_factor 1)을 f로 늦추고, L/4보다 짧은 짝(high_freq_factor 4)은 ' +
        '그대로 두며, 그 사이는 부드럽게 잇습니다.',
};

export const cfgEn = {
    'cfg.title': 'Paste a model\'s config.json: which position method, layer by layer',
    'cfg.p': 'Paste a Hugging Face model\'s <code>config.json</code> (multimodal wrappers too). The server\'s ' +
        '<code>POST /model/method</code> answers the position method of every layer — learned table, ALiBi, T5 ' +
        'buckets, RoPE with its variant, or none — grouped into kinds, each with the route that computes it and a ' +
        'request ready to send there. The strip has one cell per layer; choose a kind to draw its numbers. The ' +
        'buttons fill in public configurations cut down to the keys the server reads.',
    'cfg.model': 'Model type {type}, {n} layers (read from {src}), {k} kind(s):',
    'cfg.stripLabel': 'One cell per layer, coloured by its position method',
    'cfg.layer': 'layer',
    'cfg.layers': 'layers {r} ({n})',
    'cfg.m.learned_absolute': 'Learned table',
    'cfg.m.alibi': 'ALiBi',
    'cfg.m.t5_relative': 'T5 buckets',
    'cfg.m.sinusoidal': 'Sinusoidal table',
    'cfg.m.rope': 'RoPE',
    'cfg.m.none': 'No position',
    'cfg.stack.encoder': 'encoder, both directions',
    'cfg.stack.decoder': 'decoder, causal',
    'cfg.len.seq': 'Sequence length (seq_len)',
    'cfg.len.rel': 'Largest |key − query| drawn',
    'cfg.fromField': 'the length field',
    'cfg.ax.key': 'key position',
    'cfg.ax.bias': 'bias added to the score',
    'cfg.alibi.sum': 'The bias from the last query (position {q}) to each key, one line per head: the slope times ' +
        'the distance, with a minus sign. Slopes run from {a} (head 1) to {b} (head {n}).',
    'cfg.t5.sum': '{nb} buckets, max_distance {md}: nearby offsets get a bucket each, farther ones share ' +
        'logarithmically wider buckets, and from max_distance on every offset falls in its direction\'s last bucket.',
    'cfg.note.rope': 'RoPE: q and k are rotated in these {layers} layers; the chart shows each pair\'s wavelength ' +
        'with the model\'s scaling against plain RoPE of the same base.',
    'cfg.note.mrope': 'M-RoPE: q and k are rotated in these {layers} layers, with the pairs shared out among three ' +
        'axes, time (t), height (h) and width (w); each pair turns by its own axis\'s coordinate. The chart shows ' +
        'each pair\'s frequency in its axis\'s colour.',
    'cfg.mrope.sum': 'Pairs per axis: t {t}, h {h}, w {w}. A text token has all three coordinates equal to its ' +
        'position, so for text these layers rotate exactly as plain RoPE with base {base}; image and video tokens ' +
        'get a different coordinate on each axis.',
    'cfg.axis.0': 'time (t)',
    'cfg.axis.1': 'height (h)',
    'cfg.axis.2': 'width (w)',
    'cfg.ax.invfreq': 'inv_freq (rad / token, log)',
    'cfg.note.alibi': 'ALiBi: no vector is added or rotated; each head adds a linear penalty to its scores in ' +
        'these {layers} layers.',
    'cfg.note.t5_relative': 'T5: each head learns one bias per bucket; the route computes which bucket every ' +
        'offset falls in (the biases themselves are weights, not in config.json).',
    'cfg.note.sinusoidal': 'A fixed sine / cosine table is added to the embeddings before layer 0 (these ' +
        '{layers} layers). Its <code>request</code> sent to <code>POST /sinusoidal</code> gives the table Hugging ' +
        'Face builds: the convention, the layout and the row the first token reads (offset) differ by model.',
    'cfg.note.learned_absolute': 'A learned table is added to the token embeddings before layer 0. Its numbers are ' +
        'the model\'s weights, which config.json does not hold, so nothing is drawn here: store the table with ' +
        '<code>PUT /tables/&lt;name&gt;</code> and <code>POST /learned</code> computes with it (section 3 does this ' +
        'with the built-in demo table).',
    'cfg.note.none': 'These {layers} layers add no position information: their attention sees order only through ' +
        'what the other layers wrote into the hidden states (and the causal mask).',
    'cfg.note.none.seq': 'These {layers} layers are {mixer} blocks, not attention: they take no position input. ' +
        'They read the sequence in order, carrying a state (or a short convolution window) along it, so order comes ' +
        'from how they read, not from a position encoding.',
    'cfg.note.none.mlp': 'These {layers} layers are {mixer} blocks: they mix no tokens, so there is nothing for a ' +
        'position to act on.',
    'cfg.mixer.attention': 'attention',
    'cfg.mixer.mamba': 'Mamba',
    'cfg.mixer.conv': 'convolution',
    'cfg.mixer.linear_attention': 'linear attention',
    'cfg.mixer.recurrent': 'recurrent',
    'cfg.mixer.mlp': 'MLP',
    'cfg.mixer.moe': 'MoE',
    'cfg.mixer.rwkv': 'RWKV',
    'cfg.mixer.xlstm': 'xLSTM',
    'cfg.mixer.linear': 'linear map',
    'cfg.mixer.none': 'identity: no attention, no FFN',
    'cfg.label': 'config.json',
    'cfg.run': 'Compute',
    'cfg.field': 'field',
    'cfg.value': 'value',
    'cfg.source': 'read from',
    'cfg.badjson': 'JSON: the pasted text is not valid JSON.',
    'ctx.title': 'Context extension, seen: a realistic-size score map',
    'ctx.p': 'The RoPE score of every query position (row) and key position (column) at a real model\'s size ' +
        '(head_dim 64/128, thousands of positions), on a grid of at most 256 positions spread evenly from 0 to N − 1: ' +
        'one request, answered as a float32 .npy. q and k are the same vector with every entry 1/√head_dim, so the ' +
        'unrotated score is 1 and the map shows what the rotation alone does to it. Change the training length L ' +
        'and the scaling; factor is N / L.',
    'ctx.L': 'Training length L',
    'ctx.N': 'Length shown N',
    'ctx.q': 'query position',
    'ctx.k': 'key position',
    'ctx.line': 'distance = L ({L})',
    'ctx.note': 'Below the dashed line key and query are more than L = {L} apart: {share}% of the causal map ' +
        '(N = {N}). factor f = N / L = {f}.',
    'ctx.sc.default': 'Without scaling, the distances below the line never occurred in training: the slow pairs ' +
        'that turned less than once in training meet angles there they never saw.',
    'ctx.sc.linear': 'PI divides every angle by f: the map is the unscaled map of length L stretched over N, so no ' +
        'angle is new, but nearby positions become f times harder to tell apart.',
    'ctx.sc.ntk': 'NTK raises the base: fast pairs (the fine pattern near the diagonal) stay nearly as they were ' +
        'and the slower a pair the more it is slowed, so the far cells change most.',
    'ctx.sc.dynamic': 'Dynamic NTK sets an NTK base from the current length (here seq_len = N) and the factor: one ' +
        'base for the whole map, plain RoPE when N is at most L.',
    'ctx.sc.yarn': 'YaRN keeps the fast pairs, interpolates the slow ones by f and blends those between; it also ' +
        'multiplies scores by attention_factor², so the colour range grows past 1.',
    'ctx.sc.longrope': 'LongRoPE slows each pair by its own factor from the long list, since seq_len = N exceeds L ' +
        '(this demo\'s list rises evenly from 1 to f); scores are multiplied by attention_factor².',
    'ctx.sc.llama3': 'Llama 3 slows the pairs with wavelength above L (low_freq_factor 1) by f, keeps those below ' +
        'L/4 (high_freq_factor 4) and joins the ones in between smoothly.',
};
