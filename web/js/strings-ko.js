// Korean strings of the teaching demo (keys: see i18n.js). Text with markup is trusted static HTML.

export const ko = {
    'doc.title': 'posenc — 위치 인코딩을 숫자로 직접 보기',
    'site.title': '위치 인코딩을 숫자로 직접 보기',
    'skip': '본문으로 건너뛰기',
    'lang.group': '언어',
    'nav.label': '목차',
    'nav.why': '1. 왜 위치인가',
    'nav.sin': '2. 사인파',
    'nav.learned': '3. 학습형',
    'nav.rope': '4. RoPE',
    'nav.alibi': '5. ALiBi',
    'nav.compare': '6. 비교와 외삽',
    'nav.grid': '7. 이미지 격자',
    'nav.rel': '8. 상대 위치 방식',
    'intro': '어텐션만으로는 토큰이 어떤 순서로 들어왔는지 알 수 없습니다. 이 페이지는 순서 정보를 넣는 대표적인 방식인 ' +
        '사인파, 학습형 표, RoPE, ALiBi를 작은 예제로 하나씩 보여 주고, 끝의 두 절에서는 이미지 격자 위의 RoPE와 ' +
        '다른 상대 위치 방식(T5, Shaw, Transformer-XL)을 다룹니다. 화면의 숫자와 그래프는 모두 이 서버의 API ' +
        '(<code>posencd</code>)가 float64로 계산해 돌려준 값이고, 페이지는 그것을 그리기만 합니다. 그림마다 ' +
        '<b>요청 보기</b>를 열면 보낸 요청을 그대로 볼 수 있습니다.',
    'req.show': '요청 보기',
    'ex.show': '풀이 보기',
    'loading': '계산 중…',
    'err.generic': '서버가 요청을 거절했습니다: {msg}',
    'err.network': '서버에 연결할 수 없습니다: {msg}',

    // 1
    'why.title': '1. 왜 위치 정보를 따로 넣어야 하나',
    'why.p1': '셀프 어텐션은 토큰끼리 얼마나 관련 있는지만 계산합니다. 입력 순서를 바꾸면 출력도 똑같이 자리만 바뀔 뿐, ' +
        '각 토큰이 받는 가중치 묶음은 그대로입니다(<i>순열 등변성</i>). RNN처럼 한 토큰씩 읽지 않고 모두 한꺼번에 ' +
        '처리하기 때문입니다. 아래에서는 같은 세 단어를 두 순서로 넣어 봅니다. 조사를 떼어 낸 ' +
        '"개 사람 물었다"와 "사람 개 물었다"는 순서만이 누가 누구를 물었는지 알려 줍니다.',
    'why.method': '위치 방식',
    'why.m.none': '없음',
    'why.m.sinusoidal': '사인파 (q, k에 더함)',
    'why.m.rope': 'RoPE (회전)',
    'why.m.alibi': 'ALiBi (거리 벌점, m = 1/2)',
    'why.sentA': '문장 A',
    'why.sentB': '문장 B',
    'why.matrix': '어텐션 가중치 — 행: 쿼리, 열: 키',
    'why.focus': '"{verb}"가 두 명사에 주는 가중치',
    'why.col.sent': '문장',
    'why.same': '두 문장에서 똑같습니다. 위치 정보가 없으면 모델은 두 문장을 구분할 수 없습니다.',
    'why.diff': '두 문장에서 다릅니다. 이제 단어 순서가 계산 결과에 반영됩니다.',
    'why.note': '토큰 벡터는 설명용으로 지은 4차원 값이고, 쿼리와 키로 같은 벡터를 씁니다(투영 행렬 없음). ' +
        '계산은 <code>POST /attention</code>이 합니다.',
    'why.two': '위치를 넣는 곳은 두 가지입니다. ① 입력에 더하기: 토큰 임베딩에 위치 벡터를 더해 첫 층에 넣습니다 ' +
        '(사인파, 학습형). ② 어텐션 안에서: 층마다 쿼리·키를 위치에 따라 돌리거나(RoPE) 점수에 거리 편향을 더합니다 ' +
        '(ALiBi, T5). "이 토큰은 7번째"는 <b>절대</b> 위치, "저 토큰은 3칸 앞"은 <b>상대</b> 위치이며, 언어에서는 대개 ' +
        '상대 관계가 더 중요합니다.',
    'tok.dog': '개',
    'tok.man': '사람',
    'tok.bite': '물었다',
    'tok.the': '그',

    // 2
    'sin.title': '2. 사인파 위치 인코딩 (원조 트랜스포머)',
    'sin.p1': '시계의 초침·분침·시침을 떠올려 보세요. 차원 짝 (2i, 2i+1)마다 제 속도로 도는 바늘이 하나씩 있고, ' +
        '위치 p에서 짝 i의 값은 sin(p·ω<sub>i</sub>), cos(p·ω<sub>i</sub>)입니다(ω<sub>i</sub> = base<sup>−2i/d</sup>). ' +
        '빠른 바늘은 가까운 위치를, 느린 바늘은 먼 위치를 가려 줍니다. 파장은 2π에서 base·2π 쪽으로 기하급수로 ' +
        '길어집니다. 이 벡터를 토큰 임베딩에 더해 첫 층에 넣습니다.',
    'sin.d': '차원 d_model',
    'sin.base': 'base',
    'sin.len': '위치 수',
    'sin.heat': '위치 × 차원 표. 왼쪽(빠른 짝)은 촘촘하게, 오른쪽(느린 짝)은 천천히 변합니다.',
    'ax.dim': '차원',
    'ax.pos': '위치',
    'sin.clock': '시계 바늘로 보기',
    'sin.pos': '위치 p',
    'sin.clockNote': '바늘은 짝의 (sin, cos) 값을 그대로 좌표로 씁니다: 위치 0에서 12시를 가리키고 시계 방향으로 ' +
        '돕니다. 한 바퀴에 걸리는 토큰 수(파장)는 같은 주파수를 쓰는 <code>/rope</code>의 <code>bands</code>에서 가져옵니다.',
    'sin.dial': '짝 {j} (차원 {a}, {b})',
    'sin.dialWave': '한 바퀴 {w} 토큰',
    'sin.why': '원 논문 저자들은 학습형 위치 임베딩과 결과가 거의 같았다고 적으면서도, 학습 때보다 긴 문장으로 ' +
        '외삽할 수 있을지도 모른다는 이유로 사인파를 골랐습니다. 뒤의 연구(ALiBi 논문 등)는 이 외삽이 실제로는 ' +
        '제한적임을 보였습니다 — 6절에서 확인합니다.',
    'ex1.title': '연습 1',
    'ex1.q': 'd = 4 사인파 인코딩에서 위치 4의 벡터를 구해 보세요. 짝 0의 주파수는 1, 짝 1은 1/100입니다.',
    'ex1.table': 'd = 4, 위치 0–3',
    'ex1.a': '(sin 4, cos 4, sin 0.04, cos 0.04) ≈',
    'ex1.a2': '앞의 두 값(빠른 바늘)은 위치마다 크게 바뀌고, 뒤의 두 값(느린 바늘)은 아직 거의 움직이지 않았습니다.',

    // 3
    'learned.title': '3. 학습형 위치 임베딩',
    'learned.p1': '위치마다 벡터 한 줄을 표에 두고 토큰 임베딩처럼 학습합니다. GPT-1과 BERT가 이 방식을 썼습니다. ' +
        '단순하고 데이터에서 필요한 패턴을 자유롭게 배우지만, 표에 없는 위치에는 벡터가 아예 없고 "3칸 차이" 같은 ' +
        '상대 관계도 위치 쌍마다 따로 배워야 합니다. 아래 <code>demo-512x64</code>는 서버에 내장된 512 × 64 예시 ' +
        '표(정해진 난수 0.02·N(0,1))입니다. 학습된 값은 아니지만 모양과 한계는 같습니다.',
    'learned.heat': '표 전체: 행 = 위치 0–511, 열 = 차원 0–63',
    'learned.unavailable': '이 서버에는 학습형 표 기능(/learned)이 아직 없습니다. 다른 절은 그대로 동작합니다.',
    'learned.shape': '표 {name}: {rows} × {cols}',
    'ex4.title': '연습 4',
    'ex4.q': '최대 512 위치로 학습한 표를 가진 모델에 600토큰을 넣으면 어떻게 될까요?',
    'ex4.btn': '600토큰 넣어 보기',
    'ex4.friendly': '위치 {pos}에 해당하는 행이 없습니다. 표 {table}에는 행이 {rows}개뿐이라 600토큰 입력의 ' +
        '위치 {pos}–599는 그대로는 처리할 수 없습니다. 입력을 잘라 넣거나, 표를 늘린 뒤 추가로 학습해야 합니다.',
    'ex4.ok': '이 서버는 600토큰을 거절하지 않았습니다 (예상과 다름).',
    'ex4.raw': '서버가 보낸 원래 응답 (422 problem+json)',
    'ext.title': '표 밖으로 늘리는 방법 (extend)',
    'ext.mode': '방법',
    'ext.error': 'error — 거절 (기본값)',
    'ext.copy': 'copy — 처음부터 되풀이',
    'ext.interpolate': 'interpolate — 600행으로 다시 샘플',
    'ext.dim': '차원',
    'ext.orig': '원래 표 (위치 0–511)',
    'ext.new': '늘린 결과 (위치 0–599)',
    'ext.end': '표의 끝 (512)',
    'ext.zoom': '위치 400–600을 확대해 보여 줍니다. 아래 막대를 끌거나 차트 위에서 휠을 돌려 범위를 바꿀 수 있습니다.',
    'ext.zoomCopy': '왼쪽은 표의 처음(위치 0–87), 오른쪽은 표 끝 너머(위치 512–599)입니다. 두 곡선이 똑같습니다.',
    'ext.win0': '위치 0–87 (원래 표)',
    'ext.win1': '위치 512–599 (copy)',
    'ext.n.error': '기본값 error는 위치 512부터 거절합니다 — 위의 연습 4와 같은 422입니다.',
    'ext.n.copy': 'copy는 위치 p에 p mod 512 행을 씁니다(Longformer가 512 위치 표로 4,096 위치를 초기화한 방식). ' +
        '위치 512와 위치 0이 같은 벡터가 되므로 추가 학습 없이는 두 위치를 구분하지 못합니다.',
    'ext.n.interpolate': 'interpolate는 표를 600행으로 늘려 다시 샘플합니다(행 i = 원래 좌표 i·511/599). 모든 위치의 ' +
        '벡터가 조금씩 옮겨 가므로 역시 추가 학습이 필요합니다.',

    // 4
    'rope.title': '4. RoPE: 회전으로 위치를 넣기',
    'rope.p1': '쿼리·키 벡터를 두 칸씩 짝지어 2차원 평면 여러 개로 봅니다. 위치 m의 쿼리는 각 평면에서 m·θ<sub>j</sub>만큼, ' +
        '위치 n의 키는 n·θ<sub>j</sub>만큼 돌립니다. 회전은 길이를 바꾸지 않고 각도만 더하므로(R(a)<sup>T</sup>R(b) = R(b−a)), ' +
        '돌린 두 벡터의 내적에는 차이 m − n만 남습니다. 절대 위치로 돌렸는데 점수는 상대 위치만 봅니다. 값 벡터는 ' +
        '돌리지 않으며, 층마다 적용되므로 위치 정보가 깊은 층까지 흐려지지 않습니다(LLaMA, Llama 2).',
    'rope.rot': '2차원 한 짝: q = (1, 2), k = (3, 1), θ = 0.5',
    'rope.m': '쿼리 위치 m',
    'rope.n': '키 위치 n',
    'rope.readout': 'm − n = {d}, 점수 q·k = {s}',
    'rope.try': '해 보기:',
    'rope.lq0': 'q (돌리기 전)',
    'rope.lk0': 'k (돌리기 전)',
    'rope.lq': 'q를 m·θ 회전',
    'rope.lk': 'k를 n·θ 회전',
    'rope.w1': '숫자로 ①: q = k = (1, 0), θ = 0.5 — 점수는 cos((m − n)·θ)',
    'rope.col.pos': '(m, n)',
    'rope.col.diff': 'm − n',
    'rope.col.score': '점수',
    'rope.w1n': '2칸 차이면 문장 어디에 있든 같은 점수, 4칸 차이는 다른 점수입니다.',
    'rope.w2': '숫자로 ②: q = (1, 2), k = (3, 1), θ = 0.5',
    'rope.w2n': '(0, 0)은 돌리기 전의 내적 5입니다. 2칸 차이인 (2, 0), (5, 3), (9, 7)은 모두 같은 점수이고, 키가 쿼리보다 ' +
        '<b>뒤</b>에 있는 (3, 5)는 차이가 −2라서 전혀 다른 점수입니다: RoPE는 앞뒤 방향도 구분합니다.',
    'ex2.title': '연습 2',
    'ex2.q': 'q = k = (1, 0), θ = 0.5일 때 위치 (10, 4)의 점수는? 아래 막대로 m과 n을 옮겨 확인해 보세요.',
    'ex2.a': '차이 6칸 → cos(3) ≈ {v}. 위치 (6, 0)의 점수도 {w}입니다.',
    'decay.title': '거리에 따른 감쇠 (RoFormer 그림 2)',
    'decay.hd': 'head_dim',
    'decay.base': 'base',
    'decay.max': '최대 거리',
    'decay.ub': 'RoFormer 그림 2 곡선 (Σ|S_j|, 0에서 1)',
    'decay.mc': 'cos(r·θⱼ) 평균 (실제 점수 ÷ d)',
    'ax.dist': '상대 거리 r',
    'ax.decay': '거리 0에서 1로 맞춘 값',
    'decay.note': '두 곡선은 서로 다른 양입니다. RoFormer(3.4.3절)의 부등식은 |점수| ≤ (max<sub>j</sub> |h<sub>j+1</sub> − ' +
        'h<sub>j</sub>|) · Σ<sub>j</sub> |S<sub>j</sub>| 이고, S<sub>j</sub> = Σ<sub>k&lt;j</sub> e<sup>i·r·θ<sub>k</sub></sup>, ' +
        'h<sub>j</sub>는 q와 k로 정해지는 값입니다. 굵은 곡선은 이 가운데 q, k에 따라 달라지는 앞의 인자를 빼고 ' +
        '(1/(d/2))·Σ|S<sub>j</sub>|를 거리 0의 값 (d/2+1)/2로 나눈 것입니다. 그래서 이 곡선 자체는 어떤 q, k의 점수도 ' +
        '막아 주는 상한이 <b>아닙니다</b>: 거리가 늘 때 상한이 줄어드는 모양만 보여 줍니다. 가는 곡선은 실제 점수 ' +
        '(q = k = (1, …, 1)일 때)이고, 출렁이며 음수로도 내려갑니다.',
    'decay.above': '이 설정에서 가는 곡선(실제 점수)은 그려진 거리 {n}곳 가운데 {above}곳에서 굵은 곡선보다 위에 있습니다.',
    'decay.neg': '처음 음수가 되는 거리: r = {neg}.',
    'decay.noneg': 'r = {max}까지는 음수가 없습니다. 최대 거리를 늘리면 음수가 되는 곳이 보입니다.',
    'decay.aria': '거리 0부터 {max}까지 두 곡선. 실제 점수가 굵은 곡선보다 위인 거리 {above}곳.',
    'bands.title': '주파수 대역과 긴 문맥 확장 (스케일링)',
    'bands.p': '짝 j는 θ<sub>j</sub> = base<sup>−2j/d</sup> 속도로 돌고, 한 바퀴에 2π/θ<sub>j</sub> 토큰(파장)이 걸립니다. ' +
        '파장이 학습 길이보다 긴 짝은 학습 중에 한 바퀴도 돌지 못했으므로, 더 긴 입력에서는 본 적 없는 각도를 만납니다. ' +
        '스케일링 기법들은 주로 이런 느린 짝을 더 늦춰서 각도를 학습 때 범위 안으로 맞춥니다.',
    'bands.type': '스케일링',
    'bands.factor': 'factor',
    'bands.orig': '원래 길이',
    'bands.cur': '현재 길이 (dynamic, longrope)',
    'bands.hd': 'head_dim',
    'bands.base': 'base',
    'bands.none': '스케일링 없음',
    'bands.scaled': '{type} 적용',
    'bands.origLine': '원래 길이',
    'ax.pair': '짝 j',
    'ax.wave': '파장 (토큰, 로그)',
    'bands.summary': 'attention_factor = {af} · 짝의 분류: {classes}',
    'bands.npairs': '{n}쌍',
    'bands.pairs': '짝 {a}–{b}',
    'bands.same': '그대로 (×1)',
    'bands.slower1': '모두 {x} 느리게',
    'bands.slower': '{a}에서 {b}까지 느리게',
    'cls.extrapolate': '유지 구간',
    'cls.blend': '섞는 구간',
    'cls.interpolate': '보간 구간',
    'cls.high': '고주파 (유지)',
    'cls.medium': '중간 (잇기)',
    'cls.low': '저주파 (늦춤)',
    'cls.short': '짧은 목록',
    'cls.long': '긴 목록',
    'cls.unchanged': '구간 없음',
    'sc.name.default': '없음 (기본 RoPE)',
    'sc.name.linear': '선형 보간 (PI)',
    'sc.name.ntk': 'NTK',
    'sc.name.dynamic': '동적 NTK',
    'sc.name.yarn': 'YaRN',
    'sc.name.longrope': 'LongRoPE',
    'sc.name.llama3': 'Llama 3',
    'sc.default': '스케일링 없음: 기본 RoPE.',
    'sc.linear': 'PI(위치 보간): 모든 짝을 factor배 느리게 돌립니다. 위치를 factor로 나눈 것과 같아서 빠른 짝의 ' +
        '해상도까지 함께 줄어듭니다.',
    'sc.ntk': 'NTK-aware: base를 base·α<sup>d/(d−2)</sup>로 키웁니다. 빠른 짝은 거의 그대로 두고 느린 짝일수록 크게 늦춥니다.',
    'sc.dynamic': '동적 NTK: 현재 길이가 원래 길이를 넘을 때만 base를 키웁니다. 아래 "현재 길이"를 원래 길이보다 ' +
        '크게 해 보세요.',
    'sc.yarn': 'YaRN: 파장이 짧은 짝은 그대로(extrapolate), 긴 짝은 factor만큼 보간(interpolate), 그 사이는 섞고(blend), ' +
        'attention_factor로 어텐션 온도를 보정합니다.',
    'sc.longrope': 'LongRoPE: 짝마다 따로 찾은 배율 목록(short_factor, long_factor)으로 늦춥니다. 현재 길이가 원래 ' +
        '길이를 넘으면 long 목록을 씁니다. 여기서는 1에서 factor까지 고르게 늘어나는 예시 목록을 보냅니다.',
    'sc.llama3': 'Llama 3: 파장이 원래 길이/low_freq_factor보다 긴 짝(low)은 factor로 늦추고, 원래 길이/high_freq_factor보다 ' +
        '짧은 짝(high)은 그대로 두며, 그 사이(medium)는 부드럽게 잇습니다.',
    'slow.title': '바로잡기: head_dim 128에서 가장 느린 짝',
    'slow.p': '어떤 해설은 d = 128일 때 가장 느린 짝(j = 63)의 θ가 약 0.0001이고 주기가 약 62,832토큰이라고 적습니다. ' +
        '서버가 계산한 실제 값은 θ<sub>63</sub> = 10000<sup>−126/128</sup> ≈ {theta}, 주기 ≈ {wl}토큰입니다. 62,832는 ' +
        '2π·10000, 즉 d가 한없이 클 때의 극한입니다.',
    'rope.caveat': 'RoPE도 학습 때 본 적 없는 큰 각도(아주 먼 거리)에서는 성능이 떨어질 수 있습니다. 위의 스케일링은 ' +
        '모두 "각도 범위를 학습 때 범위 안으로 맞춘다"는 같은 생각의 변형입니다.',

    // 5
    'alibi.title': '5. ALiBi: 멀수록 점수를 깎기',
    'alibi.p1': '"가까운 말이 더 중요하다"는 생각을 그대로 식에 넣습니다. 위치 벡터는 쓰지 않고, 어텐션 점수에 거리에 ' +
        '비례하는 벌점 −m·(i − j)를 더합니다. 헤드마다 기울기 m이 다릅니다: 헤드 수 n이 2의 거듭제곱이면 ' +
        '2<sup>−8/n</sup>에서 시작해 같은 비율로 줄어드는 등비수열입니다(8개면 1/2, 1/4, …, 1/256). 2의 거듭제곱이 ' +
        '아니면 규칙이 달라집니다(아래 그림과 설명). 기울기가 큰 헤드는 바로 옆만, 작은 헤드는 ' +
        '멀리까지 봅니다. 논문은 기울기를 학습시키는 것도 시도했지만 외삽이 나빠졌다고 보고했습니다.',
    'alibi.heads': '헤드 수',
    'alibi.pow2': '헤드 {n}개: 2의 거듭제곱이므로 기울기는 2<sup>−8/{n}</sup> ≈ {s0}에서 시작해 같은 비율로 줄어듭니다 ' +
        '(마지막 값 {last}).',
    'alibi.mixed': '헤드 {n}개는 2의 거듭제곱이 아닙니다. ALiBi 저자들의 코드(BLOOM도 같음)는 {n}보다 작은 가장 큰 2의 ' +
        '거듭제곱 p = {p}의 등비수열({s0}, …, {last})을 먼저 쓰고, 나머지 {rest}개는 헤드 {p2}개용 수열 ' +
        '2<sup>−8k/{p2}</sup>에서 홀수 번째(k = 1, 3, 5, …) 값만 가져옵니다: {extra}. 그래서 {last} 다음 막대의 값이 ' +
        '다시 커져 {jump}입니다. 전체는 한 등비수열이 아니라 두 수열을 이어 붙인 것입니다.',
    'alibi.mpt': 'MPT 규칙은 alibi_bias_max = 8(기본값)이면 같은 기울기를 냅니다.',
    'alibi.rule': '규칙',
    'alibi.slopes': '헤드별 기울기 m',
    'ax.head': '헤드',
    'ax.slope': '기울기 m',
    'ex3.title': '연습 3',
    'ex3.q': 'ALiBi로 헤드 16개를 쓰면 첫 헤드의 기울기는? 그다음은?',
    'ex3.a': '2<sup>−8/16</sup> = 2<sup>−0.5</sup> ≈ {s0}, 그다음은 {s1}, {s2}, … 같은 비율로 줄어듭니다.',
    'bias.title': '편향 행렬',
    'bias.head': '헤드',
    'bias.len': '길이',
    'bias.mode': '모드',
    'bias.causal': 'causal (미래 가림)',
    'bias.symmetric': 'symmetric (양방향)',
    'bias.cap': '헤드 {h}의 편향 (m = {m}). 빈칸은 가려진 미래 토큰입니다.',
    'ax.key': '키 j',
    'ax.query': '쿼리 i',
    'bars.title': '소프트맥스 막대: 네 번째 위치의 쿼리',
    'bars.p': '원래 점수가 앞 토큰들에 대해 (2, 1, 3, 2)이고(마지막이 자기 자신), 거리 편향은 m × (−3, −2, −1, 0)입니다.',
    'bars.s0': '편향 없음 (m = 0)',
    'bars.s1': 'm = 1/2',
    'bars.s2': 'm = 1/256',
    'bars.s3': 'm = {m} (직접)',
    'bars.custom': '직접 고른 기울기 m',
    'bars.key0': '키 0 (거리 3)',
    'bars.key1': '키 1 (거리 2)',
    'bars.key2': '키 2 (거리 1)',
    'bars.key3': '키 3 (자신)',
    'bars.head': '기울기',
    'bars.kh': '키 {k}',
    'bars.kd': '거리 {d}',
    'bars.kself': '자신',
    'bars.n': 'm = 1/2이면 먼 첫 토큰의 비중이 크게 줄고 가까운 쪽이 늘어납니다. m = 1/256이면 편향이 거의 없어 ' +
        '멀리까지 고르게 봅니다.',
    'alibi.result': '논문이 보고한 결과: 길이 1,024로 학습한 1.3B 모델이 길이 2,048 입력에서, 2,048로 학습한 사인파 ' +
        '모델과 같은 퍼플렉서티를 냈고, 학습은 11% 빠르고 메모리는 11% 덜 썼습니다 — "짧게 학습하고 길게 시험하기".',

    // 6
    'cmp.title': '6. 비교: 학습 길이를 넘어가면',
    'cmp.p1': '학습 길이를 L = 512로 두고 입력 길이 N을 늘려 보세요. 각 방식이 마지막 위치 N − 1에서 무엇을 하는지 ' +
        '서버가 바로 답합니다.',
    'cmp.n': '입력 길이 N',
    'cmp.col.method': '방식',
    'cmp.col.where': '위치가 들어가는 곳',
    'cmp.col.kind': '절대 / 상대',
    'cmp.col.live': '위치 N − 1에서',
    'cmp.where.input': '입력에 더함',
    'cmp.where.rotate': '매 층의 q, k 회전',
    'cmp.where.bias': '매 층의 점수에 편향',
    'cmp.abs': '절대',
    'cmp.rel': '상대',
    'cmp.m.sin': '사인파',
    'cmp.m.learned': '학습형 (512행)',
    'cmp.m.rope': 'RoPE (head_dim 64)',
    'cmp.m.alibi': 'ALiBi (m = 1/2)',
    'cmp.m.t5': 'T5 상대 버킷',
    'cmp.sin.in': '벡터 있음, 학습 범위 안 (처음 두 값 {a}, {b})',
    'cmp.sin.out': '벡터는 계산되지만 (처음 두 값 {a}, {b}) 모델은 학습 중 이 위치를 본 적이 없습니다',
    'cmp.learned.in': '표에 있는 행: {p}',
    'cmp.learned.out': '행 없음 — 서버가 422로 거절 ({detail})',
    'cmp.learned.detail': '위치 {pos}, 표의 행 {rows}개',
    'cmp.learned.na': '이 서버에서는 사용할 수 없음',
    'cmp.rope.in': '32개 짝 모두 학습 때 본 각도 범위 안',
    'cmp.rope.out': '32개 짝 중 {k}개는 파장이 L보다 길어, 학습 때 본 적 없는 각도에 들어섭니다',
    'cmp.alibi': '편향 = −m·거리 = {b} (거리 {d}). 규칙은 그대로, 벌점만 커집니다',
    'cmp.t5': '버킷 {b} (최대 거리 128 너머는 모두 마지막 버킷 31)',
    't5.title': 'T5 버킷: 먼 거리는 한 칸으로 뭉칩니다',
    't5.series': '버킷 번호 (단방향, 32개, max_distance 128)',
    'ax.bucket': '버킷',
    'flow.title': '위치를 어디서 넣나',
    'flow.tok': '토큰 임베딩',
    'flow.add': '+ 위치 벡터 (사인파, 학습형)',
    'flow.layer': '트랜스포머 층 × N',
    'flow.qk': '쿼리 · 키',
    'flow.rot': 'RoPE: 위치만큼 회전',
    'flow.bias': 'ALiBi, T5: 점수에 거리 편향',
    'flow.sm': '소프트맥스 · 가중합',
    'cmp.choose': '실무 감각: 공개 LLM 가운데 RoPE를 쓰는 모델이 많습니다(LLaMA 계열이 대표적). 모델을 쓸 때는 모델 ' +
        '카드나 config.json에서 위치 방식을 확인하면 되고, 4절의 붙여넣기 상자가 바로 그 일을 합니다. 긴 문맥 확장이 ' +
        '왜 따로 필요한 작업인지 이해해 두면 충분합니다.',
    'check.title': '스스로 점검',
    'check.q1': '셀프 어텐션에 위치 정보가 없으면 정확히 무엇을 구분하지 못하나요?',
    'check.a1': '같은 토큰들로 된, 순서만 다른 문장들입니다. 1절에서 "없음"을 고르면 두 문장의 가중치가 똑같이 나옵니다.',
    'check.q2': 'RoPE는 절대 위치만큼 돌리는데 왜 상대 위치 방식이라고 부르나요?',
    'check.a2': '쿼리를 mθ, 키를 nθ만큼 돌리면 내적에는 (m − n)θ만 남기 때문입니다. 4절의 (2, 0), (5, 3), (9, 7)이 같은 점수였습니다.',
    'check.q3': 'ALiBi는 왜 헤드마다 기울기를 다르게 두나요?',
    'check.a3': '바로 옆만 보는 헤드부터 먼 문맥까지 보는 헤드까지, 여러 "시야 범위"를 함께 두기 위해서입니다.',
    // 7
    'grid.title': '7. 이미지 위의 RoPE: 축별(axial)과 혼합(mixed)',
    'grid.p1': '비전 트랜스포머는 이미지를 H × W개의 패치로 잘라 토큰으로 씁니다. 그러면 위치는 번호 하나가 아니라 ' +
        '(행, 열) 좌표 한 쌍입니다. 가장 흔한 2차원 RoPE인 <i>axial</i>은 짝을 둘로 나눠 한쪽은 행 좌표만큼, ' +
        '다른 쪽은 열 좌표만큼 돌립니다. RoPE-Mixed(Heo 외, ECCV 2024)는 짝마다 행 주파수와 열 주파수를 ' +
        '하나씩 두고 각도를 φ<sub>j</sub> = 행·F[0][j] + 열·F[1][j]로 정하며, 이 F를 학습합니다. 어느 쪽이든 각도가 ' +
        '좌표에 비례하므로 두 패치의 점수는 좌표 차이 (Δ행, Δ열)로만 정해집니다. 쿼리 패치 하나를 고르면, 그 쿼리가 ' +
        '모든 패치(키)와 내는 점수를 서버가 두 방식으로 계산해 이미지 모양으로 그립니다.',
    'grid.setup': 'head_dim 8 = 짝 4개(인접한 두 차원이 한 짝, <code>interleaved</code>)이고 위치는 [행, 열]입니다. ' +
        'axial은 base 100이라 짝 0·1이 행을, 짝 2·3이 열을 맡고 주파수는 축마다 1과 0.1입니다. 모든 패치에 ' +
        '똑같은 벡터를 q와 k로 넣었습니다. 패치 내용이 모두 같으니 점수가 달라지는 까닭은 위치뿐입니다.',
    'grid.rows': '행 수 H',
    'grid.cols': '열 수 W',
    'grid.qr': '쿼리 행',
    'grid.qc': '쿼리 열',
    'grid.qk': 'q = k',
    'grid.qk.rows': '(1,0, 1,0, ½,0, ½,0): 짝 0·1이 더 긺',
    'grid.qk.equal': '(1,0, 1,0, 1,0, 1,0): 네 짝 모두 길이 1',
    'grid.preset': 'mixed의 F',
    'grid.p.axial': 'axial과 같은 F ([[m, 0], [0, m]])',
    'grid.p.turn30': '30° 돌린 F (RoPE-Mixed 초기화 방식)',
    'grid.p.learned': '학습된 것처럼 보이는 F (지어낸 값)',
    'grid.p.custom': '직접 입력',
    'grid.f.caption': '주파수 행렬 F: 행 = 축, 열 = 짝 j. 위 두 줄은 axial 요청에 서버가 돌려준 axis_freqs이고, ' +
        '아래 두 줄은 mixed 요청에 보내는 freqs입니다. 아래 칸은 고쳐 쓸 수 있습니다.',
    'grid.f.corner': '축 \\ 짝',
    'grid.f.ar': 'axial <span class="sub">행</span>',
    'grid.f.ac': 'axial <span class="sub">열</span>',
    'grid.f.mr': 'mixed <span class="sub">행</span>',
    'grid.f.mc': 'mixed <span class="sub">열</span>',
    'grid.axial': 'axial',
    'grid.axialCap': '(짝마다 한 축만)',
    'grid.mixed': 'mixed',
    'grid.mixedCap': '(짝마다 두 축을 함께)',
    'grid.how': '칸을 누르면 그 패치가 쿼리가 됩니다(굵은 테두리). 키보드로는 지도에 초점을 두고 화살표 키를 ' +
        '누르거나 위의 슬라이더를 씁니다. 칸의 숫자와 툴팁은 서버가 돌려준 점수입니다. 두 지도는 같은 색 척도를 씁니다.',
    'grid.patch': '패치',
    'grid.noMap': '요청이 거절되어 그릴 지도가 없습니다',
    'grid.ax.col': '열',
    'grid.ax.row': '행',
    'grid.mapLabel': '{m} 점수 지도, 쿼리 패치 ({r}, {c}). 화살표 키로 쿼리를 옮깁니다.',
    'grid.sel': '쿼리 패치 ({r}, {c})의 점수',
    'grid.col.key': '키',
    'grid.col.delta': 'Δ (행, 열)',
    'grid.row.self': '자기 자신',
    'grid.row.origin': '왼쪽 위',
    'grid.row.swap1': '이웃 ①',
    'grid.row.swap2': '이웃 ②',
    'grid.swap': '이웃 ①(Δ = {d1})과 이웃 ②(Δ = {d2})는 쿼리에서 똑같이 √5만큼 떨어져 있습니다. axial의 점수는 {a}, {b}이고 ' +
        'mixed의 점수는 {c}, {d}입니다.',
    'grid.swap.tie': 'axial이 둘을 구분하지 못하는 까닭: 지금 q는 행 짝과 열 짝의 길이가 같고 두 축의 주파수도 같아서, ' +
        '행과 열을 맞바꿔도 점수가 그대로입니다.',
    'grid.notice': '<b>눈여겨볼 점.</b> ① axial 지도는 가로 띠와 세로 띠가 겹친 격자무늬입니다. axial 점수는 ' +
        '"Δ행만의 함수 + Δ열만의 함수"로 쪼개지기 때문입니다. ② mixed 지도의 띠는 비스듬합니다. 짝 하나가 행과 열을 ' +
        '함께 보며 돌기 때문에 두 축이 섞입니다. F를 "axial과 같은 F"로 바꾸면 두 지도가 똑같아집니다. ③ 쿼리를 ' +
        '옮기면 무늬가 통째로 따라옵니다. 점수는 좌표 차이에만 달려 있습니다. ④ 같은 거리라도 (1, 2)와 (2, 1)은 다른 ' +
        '차이이고, 대개 점수도 다릅니다.',
    'grid.p2': '좌표의 순서는 정하기 나름입니다. 여기서는 Qwen2-VL과 Pixtral처럼 행을 먼저 쓰고, RoPE-ViT는 열(x)을 ' +
        '먼저 씁니다. 서버의 <code>axes</code>에는 이 밖에도 <code>mrope</code>(Qwen2-VL 언어 모델: 시간·행·열)와 ' +
        '<code>pixtral</code>이 있습니다. 규칙은 <a href="/docs">API 문서</a>의 /rope <code>axes</code>에 있습니다.',

    // 8
    'rel.title': '8. 상대 위치 방식 나란히: T5, ALiBi, Shaw, Transformer-XL',
    'rel.p1': '이 네 방식은 위치 벡터를 입력에 더하지 않습니다. 대신 층마다 어텐션 점수에 "키가 쿼리에서 몇 칸 ' +
        '떨어져 있나"의 함수를 더합니다. 방식마다 다른 것은 그 함수의 모양입니다. 아래 그림은 길이 T인 문장에서 ' +
        '각 방식이 점수에 보태는 값을 <b>키 − 쿼리</b>에 대해 그립니다.',
    'rel.setup': '위치 항만 보이도록 k를 영벡터로 두었습니다. 그러면 내용 항 q·k가 0이 되어 <code>/attention</code>이 ' +
        '돌려준 점수가 곧 위치 항입니다(scale = 1, causal = false). ALiBi는 <code>/alibi</code>의 bias를, T5의 버킷 ' +
        '번호는 <code>/t5/buckets</code>를 그대로 씁니다. 편향 표와 임베딩은 학습된 값이 아니라 설명용으로 지은 값입니다.',
    'rel.T': '문장 길이 T',
    'rel.K': 'Shaw의 K (max_relative_position)',
    'ax.rel': '키 − 쿼리',
    'rel.t5': 'T5: 버킷마다 편향 하나',
    'rel.t5.n': '거리를 버킷으로 묶고 버킷마다 학습한 값을 더합니다. 버킷 8개(방향마다 4개), max_distance 16: 0과 1칸은 ' +
        '제 버킷을 갖고, 그 너머는 로그 간격으로 묶여 2–5칸이 한 버킷, 6칸부터는 마지막 버킷입니다. 그래서 계단 ' +
        '모양이고, 앞뒤 방향은 서로 다른 버킷입니다(버킷 4, 곧 "쿼리 뒤 0칸"은 나오지 않습니다). 막대 위 b는 버킷 번호입니다.',
    'rel.alibi': 'ALiBi: 거리에 비례한 벌점',
    'rel.alibi.n': '−m·|키 − 쿼리|, m = 1/2 (symmetric 모드). 학습하는 값이 없고, 멀어질수록 끝없이 곧게 내려갑니다. ' +
        'causal 모드(5절)에서는 오른쪽 절반, 곧 쿼리 뒤의 키가 가려집니다.',
    'rel.shaw': 'Shaw: 잘린 거리마다 학습한 벡터',
    'rel.shaw.n': '키 − 쿼리를 −K…K로 자른 뒤 그 거리의 벡터 a<sup>K</sup>와 q의 내적을 더합니다. K보다 먼 키는 모두 ' +
        '가장자리 벡터를 함께 쓰므로 회색 영역은 평평합니다. 여기서는 d = 1, q = 1이라 점수가 a<sup>K</sup> 값 그대로입니다.',
    'rel.shawK': 'K = {K}: key_embeddings의 {neg} … {pos} 행 = {rows}',
    'rel.txl': 'Transformer-XL: 거리의 사인파를 투영',
    'rel.txl.n': '거리 δ = 쿼리 − 키의 사인·코사인 벡터 R(δ)를 W<sub>R</sub>로 투영한 뒤 (q + v)와 내적합니다. ' +
        '여기서는 d = 4, W<sub>R</sub> = 단위행렬, base 16(주파수 1과 1/4), q = (1, 1, 1, 1), v = 0이므로 점수는 ' +
        'sin δ + sin(δ/4) + cos δ + cos(δ/4)입니다. 잘리지도 않고 거리와 함께 꾸준히 줄지도 않습니다. causal = false라 ' +
        '쿼리 뒤의 키는 음수 δ를 씁니다(XLNet 방식).',
    'rel.clipped': '잘림',
    'rel.bucket': '버킷',
    'rel.bias': '편향',
    'rel.numbers': '그림 뒤의 숫자',
    'rel.read': '키 − 쿼리가 음수인 값은 마지막 쿼리(위치 T − 1)의 행에서, 양수인 값은 첫 쿼리(위치 0)의 행에서 ' +
        '읽었습니다. 네 방식 모두 한 대각선의 값이 같으므로 어느 쿼리에서 읽어도 같습니다.',
    'rel.col.t5b': 'T5 버킷',
    'rel.col.t5': 'T5',
    'rel.col.alibi': 'ALiBi',
    'rel.col.shaw': 'Shaw',
    'rel.p2': '부호에 주의하세요. T5와 Shaw는 키 − 쿼리로 색인하고, Transformer-XL은 쿼리 − 키(δ)를 씁니다. 위 그림은 ' +
        '모두 가로축을 키 − 쿼리로 맞췄습니다. ALiBi만 학습할 값이 없고, T5와 Shaw는 정해진 거리 너머를 한 값으로 ' +
        '뭉치며, Transformer-XL은 사인파라서 먼 거리에서도 값이 계속 출렁입니다.',

    'foot.api': 'API: <a href="/docs">/docs</a> · <a href="/openapi.yaml">openapi.yaml</a> · ' +
        '<a href="/limits">/limits</a> · <a href="/version">/version</a>',
    'foot.lib': '차트: Apache ECharts 6.1.0 및 ZRender (Apache-2.0, BSD-3-Clause, <code>vendor/echarts/</code>에 라이선스 동봉). ' +
        '참고: Vaswani 외 2017 (arXiv 1706.03762), Su 외 2021 RoFormer (2104.09864), Press 외 2021 ALiBi (2108.12409), ' +
        'Heo 외 2024 RoPE-ViT (2403.13298), Raffel 외 2020 T5 (1910.10683), Shaw 외 2018 (1803.02155), ' +
        'Dai 외 2019 Transformer-XL (1901.02860).',
    'foot.server': '서버: {v}',
    // lesson steps, corrections, exercises, glossary
    'nav.ex': '연습 문제와 용어',
    'ex.title': '연습 문제와 용어 정리',
    'ex.p': '수업의 네 연습 문제를 수업 순서대로 풉니다. 풀이는 모두 서버가 계산한 값입니다.',
    'ex2.readout': '위치 ({m}, {n}), 차이 {d} → 점수 {s}',
    'ex4.hint': '버튼을 누르면 서버에 600토큰 요청을 실제로 보냅니다. 먼저 답을 생각해 본 뒤 눌러 보세요.',
    'fix.particles.t': '바로잡기: 조사가 다른 두 문장',
    'fix.particles': '수업은 위치 정보가 없으면 "개가 사람을 물었다"와 "사람이 개를 물었다"를 구분할 수 없다고 말합니다. ' +
        '그런데 두 문장은 순서만 다른 것이 아니라 조사가 다릅니다(개<b>가</b>·사람<b>을</b> / 사람<b>이</b>·개<b>를</b>). ' +
        '조사가 붙은 낱말은 서로 다른 토큰이므로, 위치 정보가 없어도 두 문장은 다른 입력입니다. 그래서 위의 예는 ' +
        '조사를 떼고 "개 사람 물었다"와 "사람 개 물었다"를 씁니다. 거꾸로 "사람이 개를 물었다"와 "개를 사람이 ' +
        '물었다"는 순서가 달라도 뜻이 같습니다: 한국어에서는 조사가 누가 누구를 물었는지 표시합니다.',
    'fix.wave.t': '바로잡기: 파장은 2π·10000까지 가지 않는다',
    'fix.wave': '수업은 "파장이 2π에서 10000·2π까지 기하급수로 늘어난다"고 적습니다. 가장 느린 짝 j = d/2 − 1의 ' +
        '파장은 2π·base<sup>(d−2)/d</sup>이고, 2π·base는 d가 한없이 커질 때의 극한일 뿐입니다. 지금 설정 ' +
        '(d_model = {d}, base = {base})에서 가장 느린 짝 {j}의 파장은 {wl}토큰이고(지수 {e}), 2π·base ≈ {lim}보다 ' +
        '짧습니다. d = 4인 수업의 예에서는 2π·100 ≈ 628입니다.',
    'lin.title': 'PE(p + k)는 PE(p)의 선형 함수: PE(p + k) = M·PE(p)',
    'lin.p': '논문의 가설 "고정된 거리 k만큼 떨어진 위치의 인코딩은 원래 인코딩의 선형 함수"를 d = 4에서 확인합니다. ' +
        '짝마다 sin((p+k)ω) = cos(kω)·sin(pω) + sin(kω)·cos(pω), cos((p+k)ω) = −sin(kω)·sin(pω) + cos(kω)·cos(pω)이므로, ' +
        'M은 짝마다 2×2 회전 행렬이 놓인 블록 대각 행렬이고 그 값은 PE(k)의 성분입니다. M은 k에만 의존하고 p와는 무관합니다.',
    'lin.p0': '위치 p',
    'lin.k': '거리 k',
    'lin.M': 'M (PE({k})에서 읽음)',
    'lin.pe': 'PE({p})',
    'lin.mpe': 'M·PE(p)',
    'lin.pek': 'PE({q}) (서버)',
    'lin.n': 'M과 PE(p), PE(p + k)는 서버의 <code>/sinusoidal</code> 값이고, M·PE(p) 열만 페이지가 곱했습니다. ' +
        '마지막 두 열이 같습니다.',
    'cross.p': '교차항으로 풀어 쓰기: 점수 = (q·k)·cos((m − n)θ) + (q₁k₂ − q₂k₁)·sin((m − n)θ), 지금 (m − n)θ = {d} × 0.5 = {a} 라디안.',
    'cross.api': '서버가 회전해서 구한 점수: {s}',
    'lay.title': '복소수 꼴, rotate_half, 그리고 두 가지 짝 배치',
    'lay.p': '구현마다 "어느 두 차원을 한 짝으로 돌리나"가 다릅니다. <b>interleaved</b>(이웃한 (2j, 2j+1), RoFormer 원 논문·' +
        'GPT-J·복소수 구현)는 짝을 복소수 z<sub>j</sub> = q<sub>2j</sub> + i·q<sub>2j+1</sub>로 보고 e<sup>i·p·θ<sub>j</sub></sup>를 ' +
        '곱합니다. <b>half</b>(앞 절반과 뒤 절반 (j, j + d/2), Hugging Face Llama 등)는 q′ = q ⊙ cos + rotate_half(q) ⊙ sin으로 ' +
        '씁니다. 같은 q라도 두 배치는 서로 다른 벡터를 내므로, 가중치와 배치가 맞아야 합니다. 아래는 head_dim 4, base 100 ' +
        '(θ = 1, 0.1), q = (1, 2, 3, 4)입니다.',
    'lay.pos': '위치 p',
    'lay.complex': 'interleaved (복소수 꼴): z₀ = {z0}, z₁ = {z1}; e<sup>i·p·θ₀</sup> = {e0}, e<sup>i·p·θ₁</sup> = {e1}; ' +
        '돌린 뒤 z₀·e<sup>i·p·θ₀</sup> = {r0}, z₁·e<sup>i·p·θ₁</sup> = {r1}.',
    'lay.half': 'half (rotate_half 꼴): 짝은 (q₀, q₂), (q₁, q₃), 곧 z₀ = {z0}, z₁ = {z1}; rotate_half(q) = {rh}; ' +
        'cos = {c}, sin = {s}; q ⊙ cos + rotate_half(q) ⊙ sin의 짝은 {r0}, {r1}.',
    'lay.norm': '길이 보존: |q| = {q}, 돌린 뒤 interleaved {il}, half {hf}. 회전은 길이를 바꾸지 않습니다 ' +
        '(세 값 모두 서버가 계산한 내적의 제곱근).',
    'lay.n': '위 두 꼴은 같은 식입니다: half 배치에서 짝 j를 복소수 q<sub>j</sub> + i·q<sub>j+d/2</sub>로 보면 rotate_half 식은 ' +
        '그 복소수에 e<sup>i·p·θ<sub>j</sub></sup>를 곱한 것과 같습니다. 다른 것은 짝을 고르는 방법뿐입니다.',
    'fix.alibi.t': '바로잡기: ALiBi 기울기 규칙',
    'fix.alibi': '수업은 "헤드 n개면 2<sup>−8/n</sup>에서 시작해 같은 비율로 줄어드는 등비수열"이라고 적습니다. 이것은 ' +
        'n이 2의 거듭제곱일 때만 맞습니다. 다른 n에서는 논문 코드와 BLOOM이 두 수열을 이어 붙입니다. 헤드를 12개로 ' +
        '놓으면 0.0039 다음 막대의 값이 0.707로 뛰어오르는 모습과 그 이유가 위에 나옵니다.',
    'fix.alibi.btn': '헤드 12개로 보기',
    'bars.scores': '소프트맥스 전의 점수: 원래 점수 (2, 1, 3, 2) + 편향 (서버 계산)',
    'terms.title': '용어 정리',
    'term.pe': '위치 인코딩 (positional encoding)',
    'term.pe.d': '토큰이 몇 번째인지를 모델에 알려 주는 방법. 입력에 벡터를 더하거나, 어텐션 안에서 쿼리·키를 돌리거나 점수에 편향을 더합니다.',
    'term.abs': '절대 위치',
    'term.abs.d': '"이 토큰은 7번째"처럼 위치 번호 자체. 사인파와 학습형 표가 이것을 인코딩합니다.',
    'term.rel': '상대 위치',
    'term.rel.d': '"저 토큰은 3칸 앞"처럼 두 위치의 차이. RoPE, ALiBi, T5는 점수가 이 차이에만 의존하게 만듭니다.',
    'term.perm': '순열 등변성 (permutation equivariance)',
    'term.perm.d': '입력 순서를 바꾸면 출력도 같은 방식으로 자리만 바뀌는 성질. 위치 정보가 없는 셀프 어텐션이 그렇습니다.',
    'term.extrap': '길이 외삽 (extrapolation)',
    'term.extrap.d': '학습 때보다 긴 입력을 다루는 능력. 학습형 표는 전혀 못 하고, ALiBi는 잘하며, RoPE는 스케일링이 필요합니다.',
    'term.wave': '파장 (wavelength)',
    'term.wave.d': '한 짝이 한 바퀴 도는 데 걸리는 토큰 수, 2π/θ.',
    'term.invfreq': '주파수 (inv_freq, θ)',
    'term.invfreq.d': '짝 j가 한 위치마다 도는 각도(라디안), base<sup>−2j/d</sup>. base는 rope_theta라고도 부릅니다.',
    'term.rot': '회전 (rotation)',
    'term.rot.d': '2차원 평면에서 벡터를 원점 둘레로 돌리는 변환. 길이를 바꾸지 않고, 두 회전의 각도는 더해집니다.',
    'term.layout': '짝 배치 (layout)',
    'term.layout.d': 'RoPE가 어느 두 차원을 한 짝으로 돌리는지: interleaved (2j, 2j+1) 또는 half (j, j + d/2).',
    'term.slope': '기울기 (slope, m)',
    'term.slope.d': 'ALiBi에서 헤드마다 거리 1당 점수에서 빼는 양.',
    'term.bucket': '버킷 (bucket)',
    'term.bucket.d': 'T5가 상대 거리를 묶는 칸. 가까운 거리는 하나씩, 먼 거리는 로그 간격으로 묶고, max_distance 너머는 한 칸입니다.',
    'term.interp': '보간 (interpolation)',
    'term.interp.d': '긴 입력의 위치를 학습 범위 안으로 줄여 넣는 것. PI는 모든 짝을 늦추고, YaRN과 Llama 3 방식은 느린 짝만 늦춥니다.',
    'term.softmax': '소프트맥스 (softmax)',
    'term.softmax.d': '점수를 합이 1인 가중치로 바꾸는 함수. 점수에 같은 값을 더해도 결과는 같습니다.',
    'term.headdim': 'head_dim',
    'term.headdim.d': '어텐션 헤드 하나의 쿼리·키 차원 수. RoPE는 head_dim/2개의 짝을 돌립니다.',
    'pb.invalid-field': '서버가 요청을 거절했습니다: {pointer} 항목의 값이 규칙에 맞지 않습니다.',
    'pb.unknown-field': '서버가 요청을 거절했습니다: {pointer} 항목은 이 요청에 쓸 수 없습니다.',
    'pb.limit-exceeded': '서버가 요청을 거절했습니다: {pointer} 항목이 서버의 한도를 넘습니다.',
    'pb.malformed-json': '서버가 요청을 읽지 못했습니다: 올바른 JSON 형식이 아닙니다.',
    'pb.too-large': '서버가 요청을 거절했습니다: 요청이 너무 큽니다.',
    'pb.not-found': '서버에 이 기능이 없습니다.',
    'pb.unavailable': '서버가 지금은 요청을 받을 수 없습니다. 잠시 뒤 다시 해 보세요.',
    'pb.overloaded': '서버가 바쁩니다. 잠시 뒤 다시 해 보세요.',
    'pb.shutting-down': '서버가 멈추는 중입니다.',
    'pb.other': '서버가 요청을 거절했습니다 (상태 코드 {status}, 항목 {pointer}).',
    'ax.weight': '가중치',
    'ax.relval': '점수에 더해지는 값',
    'ext.yname': '차원 {d}의 값',
    'aria.general': '차트입니다. ',
    'aria.s.count': '계열 {seriesCount}개. ',
    'aria.s.name': '계열 "{seriesName}": ',
    'aria.d.all': '값: ',
    'aria.d.part': '처음 {displayCnt}개 값: ',
    'aria.heat': '히트맵: {yName} {rows}개(행) × {xName} {cols}개(열), 색은 {min}부터 {max}까지. ',
    'alibi.r.press': '논문 (press)',
    'alibi.r.mpt': 'MPT (mpt)',
    'lay.pair': '짝',
    'lay.at': '위치 {p}',
    'slow.shared': '위 주파수 대역 그림의 "스케일링 없음" 요청과 같아서 그 응답을 씁니다',
    'budget.title': '각도 예산: 학습 때 돈 만큼과 긴 입력에서 도는 만큼',
    'budget.p': '짝마다 학습 길이 L까지 몇 바퀴 돌았는지(L/파장)와 위치 N에서 몇 바퀴 도는지(N/파장)를 비교합니다. ' +
        '학습 중에 한 바퀴 이상 돈 짝은 모든 각도를 이미 보았지만, 한 바퀴도 못 돈 느린 짝은 L·θ까지의 각도만 ' +
        '보았습니다. N에서 그보다 더 돌면 모델이 본 적 없는 각도입니다. 스케일링은 이런 짝을 늦춰 학습 때의 ' +
        '범위 안으로 되돌립니다. L은 "원래 길이", N은 "현재 길이"입니다.',
    'ax.turns': '바퀴 수 (로그)',
    'budget.trained': '학습 때 (L = {L})',
    'budget.plain': 'N = {N}, 스케일링 없음',
    'budget.scaled': 'N = {N}, {type}',
    'budget.one': '한 바퀴',
    'budget.note': '학습 때 한 바퀴도 못 돌았는데 N = {N}에서 학습 때보다 더 도는 짝: 스케일링 없이 {a}쌍, {type} 적용 시 {b}쌍.',
    'budget.temp': 'attention_factor = {af}: Hugging Face는 이 값을 cos와 sin에 곱하므로 q·k 점수가 {af2}배가 됩니다 ' +
        '(YaRN의 온도 보정).',
};
