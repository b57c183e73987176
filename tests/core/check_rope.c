/*
 * tests/check_rope.c -- core/rope.{c,h} and core/rope_explain.{c,h}.
 *
 * Expected values: the oracle (tests/vectors/rope/<file>.json, made by Hugging Face transformers'
 * modeling_rope_utils / LlamaRotaryEmbedding / GPT-J code run in float64; see
 * tests/vectors/README.md). The tables below copy the numbers of the named cases verbatim
 * (shortest round-trip repr); other expectations are derived by hand in the comment of each test.
 * Tolerances: the oracle's own (inv_freq and attention_factor abs 1e-15 + rel 1e-12; tables and
 * rotations abs = rel = 1e-11, 1e-9 when positions reach 131071), else stated per check.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/rope.h"
#include "core/rope_explain.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* |got - want| <= abs + rel * |want|, the oracle's rule. */
static int close_to(double got, double want, double abs_tol, double rel_tol)
{
    return fabs(got - want) <= abs_tol + rel_tol * fabs(want);
}

#define ck_close(got, want, abs_tol, rel_tol)                                                      \
    ck_assert_msg(close_to((got), (want), (abs_tol), (rel_tol)),                                   \
                  "%s = %.17g, want %.17g (abs %g, rel %g)", #got, (double)(got), (double)(want),  \
                  (double)(abs_tol), (double)(rel_tol))

/* pe_rope_params_init's defaults (plain RoPE, base 10000) with rotary_dim d. */
static pe_rope_params plain_params(size_t d)
{
    pe_rope_params p;
    pe_rope_params_init(&p);
    p.rotary_dim = d;
    return p;
}

/* plain_params(d) with scaling type, factor s and original length l0 (L0; 0 = not used). */
static pe_rope_params scaled_params(size_t d, pe_rope_type type, double s, double l0)
{
    pe_rope_params p = plain_params(d);
    p.type = type;
    p.factor = s;
    p.original_max_position_embeddings = l0;
    return p;
}

/* ---- oracle inv_freq / attention_factor ----------------------------------------------------- */

/* One oracle case: fields left out of an initializer keep pe_rope_params_init's defaults. */
typedef struct {
    const char *id; /* oracle case id */
    size_t d;
    double base;
    pe_rope_type type;
    double factor, l0;
    size_t seq_len;
    double beta_fast, beta_slow; /* 0 = default */
    int no_truncate;
    int has_mscale, has_msad, has_af;
    double mscale, msad, af;
    double low, high; /* 0 = default */
    const double *short_f, *long_f;
    double want_att;
    const double *want; /* d/2 values */
} inv_case;

/* rope-default-hd8-theta1e4 */
static const double W0[] = {
    1.0,
    0.1,
    0.01,
    0.001,
};
/* rope-default-hd128-theta5e5 */
static const double W1[] = {
    1.0,
    0.8146172338565447,
    0.6636012376960885,
    0.540581004635767,
    0.44036660267178046,
    0.3587302237512899,
    0.2922278225730151,
    0.2380538204803507,
    0.19392274474868576,
    0.15797280990904317,
    0.12868737343265052,
    0.10483095217796996,
    0.08539710028576561,
    0.06956594961416032,
    0.056669621445291044,
    0.04616405026546052,
    0.03760603093086393,
    0.030634520893224042,
    0.024955408670558694,
    0.020329105980970156,
    0.016560440080994446,
    0.013490419890226748,
    0.010989528534539826,
    0.0089522593361944,
    0.0072926647372171085,
    0.005940730375674967,
    0.004839421345719893,
    0.003942276030116656,
    0.0032114459947525913,
    0.0026160992529250353,
    0.0021311195369119653,
    0.0017360467021768655,
    0.001414213562373095,
    0.0011520427402627808,
    0.0009384738703573801,
    0.0007644969883171747,
    0.000622772421914596,
    0.0005073211476622092,
    0.0004132725499855165,
    0.00033665894149804206,
    0.0002742481756762073,
    0.00022340729025955571,
    0.00018199142881462546,
    0.00014825335432657046,
    0.00012076973741146504,
    9.838110942370891e-05,
    8.01429472224798e-05,
    6.528582597948753e-05,
    5.318295896944989e-05,
    4.332375492399938e-05,
    3.529227739646723e-05,
    2.8749697389207992e-05,
    2.341999896140934e-05,
    1.907833477086643e-05,
    1.5541540297632344e-05,
    1.266040656712728e-05,
    1.031338537721246e-05,
    8.40146146768135e-06,
    6.843975301154928e-06,
    5.57522022840934e-06,
    4.5416704806078695e-06,
    3.699723044000707e-06,
    3.0138581521391708e-06,
    2.455140791131609e-06,
};
/* rope-partial-hd80-prf0.4 */
static const double W2[] = {
    1.0,   0.5623413251903491,    0.31622776601683794,    0.17782794100389226,
    0.1,   0.056234132519034905,  0.03162277660168379,    0.01778279410038923,
    0.01,  0.005623413251903491,  0.003162277660168379,   0.001778279410038923,
    0.001, 0.0005623413251903491, 0.00031622776601683794, 0.00017782794100389227,
};
/* rope-linear-hd64-theta1e4-f2 */
static const double W3[] = {
    0.5,
    0.37494710466622794,
    0.28117066259517454,
    0.21084825171429114,
    0.15811388300841897,
    0.11856868528308277,
    0.08891397050194613,
    0.0666760716081662,
    0.05,
    0.03749471046662279,
    0.028117066259517452,
    0.021084825171429112,
    0.015811388300841896,
    0.011856868528308275,
    0.008891397050194615,
    0.00666760716081662,
    0.005,
    0.0037494710466622794,
    0.0028117066259517455,
    0.0021084825171429115,
    0.0015811388300841895,
    0.0011856868528308275,
    0.0008891397050194615,
    0.000666760716081662,
    0.0005,
    0.0003749471046662279,
    0.00028117066259517455,
    0.00021084825171429115,
    0.00015811388300841897,
    0.00011856868528308277,
    8.891397050194613e-05,
    6.66760716081662e-05,
};
/* rope-linear-hd8-theta1e4-f2.5 */
static const double W4[] = {
    0.4,
    0.04,
    0.004,
    0.0004,
};
/* rope-dynamic-hd64-f2-L2048-seq1024 */
static const double W5[] = {
    1.0,
    0.7498942093324559,
    0.5623413251903491,
    0.4216965034285823,
    0.31622776601683794,
    0.23713737056616555,
    0.17782794100389226,
    0.1333521432163324,
    0.1,
    0.07498942093324558,
    0.056234132519034905,
    0.042169650342858224,
    0.03162277660168379,
    0.02371373705661655,
    0.01778279410038923,
    0.01333521432163324,
    0.01,
    0.007498942093324559,
    0.005623413251903491,
    0.004216965034285823,
    0.003162277660168379,
    0.002371373705661655,
    0.001778279410038923,
    0.001333521432163324,
    0.001,
    0.0007498942093324557,
    0.0005623413251903491,
    0.0004216965034285823,
    0.00031622776601683794,
    0.00023713737056616554,
    0.00017782794100389227,
    0.0001333521432163324,
};
/* rope-dynamic-hd64-f2-L2048-seq2049 */
static const double W6[] = {
    1.0,
    0.7498705980519518,
    0.5623059138227919,
    0.42165667188644623,
    0.31618794072008505,
    0.23710004020458525,
    0.17779434894635415,
    0.13332275477466002,
    0.09997481385680801,
    0.07496817345693718,
    0.05621642906501594,
    0.04215504728332863,
    0.031610830517257944,
    0.023704032384895105,
    0.017774956940704127,
    0.013328917591473494,
    0.009994963405703411,
    0.00749492918654219,
    0.005620227031469421,
    0.00421444300527572,
    0.0031602868968219695,
    0.0023698062253356368,
    0.0017770480114596724,
    0.0013325560551202963,
    0.0009992446059908064,
    0.0007493041502945128,
    0.000561881151304156,
    0.00042133815496256665,
    0.0003159490942438858,
    0.0002369209362546351,
    0.00017766004416029158,
    0.00013322204356441402,
};
/* rope-dynamic-partial-hd64-prf0.5-f2-seq4096 */
static const double W7[] = {
    1.0,
    0.5226270888382318,
    0.27313907398752507,
    0.14274987908607065,
    0.0746049537387627,
    0.03899056978540051,
    0.02037752797908779,
    0.01064984812543027,
    0.005565899122362923,
    0.002908889655087804,
    0.0015202645321901872,
    0.0007945314267225741,
    0.00041524364653850577,
    0.000217017578148991,
    0.00011341926509473065,
    5.9275980334630766e-05,
};
/* rope-yarn-hd64-theta1e4-f16-L2048 */
static const double W8[] = {
    1.0,
    0.7498942093324559,
    0.5623413251903491,
    0.4216965034285823,
    0.31622776601683794,
    0.23713737056616555,
    0.17782794100389226,
    0.1333521432163324,
    0.1,
    0.06958153000055961,
    0.048123440328789485,
    0.0330464086821437,
    0.022500821812736542,
    0.015163110714086544,
    0.010088315883874658,
    0.006603495553501077,
    0.004230769230769231,
    0.002631840253907177,
    0.0015680671567807809,
    0.0008717764253571653,
    0.00042569122348420473,
    0.00014821085660385343,
    0.00011114246312743269,
    8.334508951020775e-05,
    6.25e-05,
    4.6868388083278484e-05,
    3.514633282439682e-05,
    2.6356031464286393e-05,
    1.976423537605237e-05,
    1.4821085660385346e-05,
    1.1114246312743267e-05,
    8.334508951020775e-06,
};
/* rope-yarn-hd64-f40-L4096-deepseek-v2 and rope-yarn-hd64-f40-mscale-only (the same inv_freq:
 * mscale changes only the attention factor) */
static const double W9[] = {
    1.0,
    0.7498942093324559,
    0.5623413251903491,
    0.4216965034285823,
    0.31622776601683794,
    0.23713737056616555,
    0.17782794100389226,
    0.1333521432163324,
    0.1,
    0.07498942093324558,
    0.056234132519034905,
    0.03900692656714386,
    0.026879360111431223,
    0.018378146218877827,
    0.01244795587027246,
    0.008334508951020777,
    0.0055,
    0.0035619974943291656,
    0.002249365300761396,
    0.0013705136361428923,
    0.0007905694150420945,
    0.00041499039849078964,
    0.0001778279410038922,
    3.33380358040831e-05,
    2.5e-05,
    1.8747355233311396e-05,
    1.4058533129758728e-05,
    1.0542412585714557e-05,
    7.905694150420947e-06,
    5.9284342641541385e-06,
    4.445698525097307e-06,
    3.33380358040831e-06,
};
/* rope-yarn-gpt-oss-truncate-false */
static const double W11[] = {
    1.0,
    0.6890443058881633,
    0.4747820554769007,
    0.3271458718642365,
    0.2254180002028708,
    0.15532298948448497,
    0.10702442147781144,
    0.07374456821026082,
    0.050813274815461475,
    0.03170569618466377,
    0.019335001126540362,
    0.011592049256286924,
    0.006794959489732219,
    0.0038603593171920685,
    0.0020937923789696887,
    0.0010526021013863359,
    0.00045648391922324086,
    0.00012931870124506317,
    3.8308812373753384e-05,
    2.6396469031472782e-05,
    1.818833668168956e-05,
    1.2532569824095001e-05,
    8.63549587543848e-06,
    5.950239261491605e-06,
    4.0999784818029795e-06,
    2.8250668271503398e-06,
    1.9465962110014815e-06,
    1.3412910350540445e-06,
    9.242089502428301e-07,
    6.36820914615699e-07,
    4.387978250864396e-07,
    3.0235114281192144e-07,
};
/* rope-yarn-gpt-oss-truncate-true */
static const double W12[] = {
    1.0,
    0.6890443058881633,
    0.4747820554769007,
    0.3271458718642365,
    0.2254180002028708,
    0.15532298948448497,
    0.10702442147781144,
    0.07374456821026082,
    0.050813274815461475,
    0.031620752275346484,
    0.019450967544057934,
    0.011792191099482284,
    0.007015713910504388,
    0.004069554714758243,
    0.002277271936341833,
    0.001206130969041873,
    0.0005809475019311124,
    0.0002279477957951252,
    3.8308812373753384e-05,
    2.6396469031472782e-05,
    1.818833668168956e-05,
    1.2532569824095001e-05,
    8.63549587543848e-06,
    5.950239261491605e-06,
    4.0999784818029795e-06,
    2.8250668271503398e-06,
    1.9465962110014815e-06,
    1.3412910350540445e-06,
    9.242089502428301e-07,
    6.36820914615699e-07,
    4.387978250864396e-07,
    3.0235114281192144e-07,
};
/* rope-yarn-hd8-f4-L2048 */
static const double W13[] = {
    1.0,
    0.1,
    0.00625,
    0.00025,
};
/* rope-yarn-hd4-theta10-singular */
static const double W14[] = {
    1.0,
    0.31622776601683794,
};
/* rope-yarn-partial-hd128-prf0.5-f8 */
static const double W15[] = {
    1.0,
    0.7498942093324559,
    0.5623413251903491,
    0.4216965034285823,
    0.31622776601683794,
    0.23713737056616555,
    0.17782794100389226,
    0.1333521432163324,
    0.1,
    0.07498942093324558,
    0.056234132519034905,
    0.03933130849285815,
    0.02736586436684174,
    0.018925386304799747,
    0.01299511876566905,
    0.008847401809545132,
    0.005961538461538462,
    0.003965786683969718,
    0.002595421500878534,
    0.0016624573692857571,
    0.0010338215427473545,
    0.0006156450966621604,
    0.00034197680962286974,
    0.0001666901790204155,
    0.000125,
    9.373677616655697e-05,
    7.029266564879364e-05,
    5.2712062928572786e-05,
    3.952847075210474e-05,
    2.9642171320770692e-05,
    2.2228492625486534e-05,
    1.666901790204155e-05,
};
/* rope-longrope-hd8-seq4096-short */
static const double W16[] = {
    1.0,
    0.09523809523809523,
    0.008333333333333333,
    0.000625,
};
/* short_factor and long_factor of the hd8 longrope cases (the same lists in all three) */
static const double LR8_SHORT[] = {
    1.0,
    1.05,
    1.2,
    1.6,
};
static const double LR8_LONG[] = {
    1.0,
    1.9,
    5.3,
    14.0,
};
/* rope-longrope-hd8-seq131072-long and rope-longrope-hd8-af1-long (the same inv_freq: the explicit
 * attention factor changes only that factor) */
static const double W17[] = {
    1.0,
    0.05263157894736842,
    0.0018867924528301887,
    7.142857142857143e-05,
};
/* rope-longrope-hd96-phi3-like-long */
static const double W19[] = {
    1.0,
    0.7631325677404018,
    0.5823009137247533,
    0.44436295945503684,
    0.33909912577533446,
    0.25875907399414344,
    0.19745723760027345,
    0.1506845177047995,
    0.11498290494913188,
    0.08774693624982347,
    0.06695859074048034,
    0.05109559523548516,
    0.03899091511677779,
    0.02975394489268659,
    0.022705194596346102,
    0.01732626710593878,
    0.013221639701511934,
    0.010089505028856229,
    0.007699164074132348,
    0.005875291981458013,
    0.004483361822183135,
    0.003421281355289691,
    0.002610766915604614,
    0.001992250967948083,
    0.0015202882466515651,
    0.0011601391278170804,
    0.0008852892772041029,
    0.0006755662243997467,
    0.0005155201565592786,
    0.0003933941398896465,
    0.00030019723373536915,
    0.00022908172860124066,
    0.00017481051329329495,
    0.0001333983024049122,
    0.00010179548429666685,
    7.767995554285533e-05,
    5.9277525518974727e-05,
    4.52345666879312e-05,
    3.4518347125867605e-05,
    2.6340899412155788e-05,
    2.010068047659019e-05,
    1.5338797736956206e-05,
    1.1705029760324761e-05,
    8.93207316221699e-06,
    6.816041008317071e-06,
    5.201305123676618e-06,
    3.969106146525662e-06,
    3.028819146571472e-06,
};
static const double W19_SHORT[] = {
    1.0,    1.0001, 1.0004, 1.0008, 1.0014, 1.0023, 1.0033, 1.0044, 1.0058, 1.0073, 1.0091, 1.011,
    1.013,  1.0153, 1.0177, 1.0204, 1.0232, 1.0262, 1.0293, 1.0327, 1.0362, 1.0399, 1.0438, 1.0479,
    1.0522, 1.0566, 1.0612, 1.066,  1.071,  1.0761, 1.0815, 1.087,  1.0927, 1.0986, 1.1047, 1.1109,
    1.1173, 1.1239, 1.1307, 1.1377, 1.1449, 1.1522, 1.1597, 1.1674, 1.1753, 1.1833, 1.1916, 1.2,
};
static const double W19_LONG[] = {
    1.0,     1.0816,  1.17,    1.2655,  1.3688,  1.4806,  1.6015,  1.7322,  1.8737,  2.0266,
    2.1921,  2.3711,  2.5647,  2.7741,  3.0006,  3.2456,  3.5106,  3.7972,  4.1073,  4.4426,
    4.8054,  5.1977,  5.6221,  6.0812,  6.5777,  7.1147,  7.6957,  8.324,   9.0037,  9.7388,
    10.534,  11.394,  12.3244, 13.3306, 14.4191, 15.5964, 16.8698, 18.2472, 19.7371, 21.3486,
    23.0917, 24.9771, 27.0164, 29.2223, 31.6083, 34.1891, 36.9806, 40.0,
};
/* rope-llama3-3.1-hd128 */
static const double W20[] = {
    1.0,
    0.8146172338565447,
    0.6636012376960885,
    0.540581004635767,
    0.44036660267178046,
    0.3587302237512899,
    0.2922278225730151,
    0.2380538204803507,
    0.19392274474868576,
    0.15797280990904317,
    0.12868737343265052,
    0.10483095217796996,
    0.08539710028576561,
    0.06956594961416032,
    0.056669621445291044,
    0.04616405026546052,
    0.03760603093086393,
    0.030634520893224042,
    0.024955408670558694,
    0.020329105980970156,
    0.016560440080994446,
    0.013490419890226748,
    0.010989528534539826,
    0.0089522593361944,
    0.0072926647372171085,
    0.005940730375674967,
    0.004839421345719893,
    0.003942276030116656,
    0.0032114459947525913,
    0.002166570763503359,
    0.001371893567761138,
    0.0008567514129196321,
    0.0005248461609929547,
    0.00031269375038406517,
    0.00017850781276799638,
    9.556212353964683e-05,
    7.78465527393245e-05,
    6.341514345777615e-05,
    5.165906874818956e-05,
    4.208236768725526e-05,
    3.428102195952591e-05,
    2.7925911282444464e-05,
    2.2748928601828183e-05,
    1.8531669290821308e-05,
    1.509621717643313e-05,
    1.2297638677963614e-05,
    1.0017868402809974e-05,
    8.160728247435942e-06,
    6.647869871181236e-06,
    5.415469365499923e-06,
    4.411534674558404e-06,
    3.593712173650999e-06,
    2.9274998701761677e-06,
    2.3847918463583037e-06,
    1.942692537204043e-06,
    1.58255082089091e-06,
    1.2891731721515574e-06,
    1.0501826834601687e-06,
    8.55496912644366e-07,
    6.969025285511675e-07,
    5.677088100759837e-07,
    4.6246538050008837e-07,
    3.7673226901739635e-07,
    3.068925988914511e-07,
};
/* rope-llama3-3.2-hd64-f32 */
static const double W21[] = {
    1.0,
    0.6636012376960885,
    0.44036660267178046,
    0.2922278225730151,
    0.19392274474868576,
    0.12868737343265052,
    0.08539710028576561,
    0.056669621445291044,
    0.03760603093086393,
    0.024955408670558694,
    0.016560440080994446,
    0.010989528534539826,
    0.0072926647372171085,
    0.004839421345719893,
    0.0032114459947525913,
    0.0012905479282092638,
    0.00042955679655936815,
    9.70828780262767e-05,
    1.9461638184831125e-05,
    1.291476718704739e-05,
    8.570255489881478e-06,
    5.687232150457046e-06,
    3.7740542941082826e-06,
    2.5044671007024935e-06,
    1.661967467795309e-06,
    1.102883668639601e-06,
    7.318749675440419e-07,
    4.856731343010108e-07,
    3.2229329303788936e-07,
    2.138742281610915e-07,
    1.4192720251899592e-07,
    9.418306725434909e-08,
};
/* rope-llama3-hd128-lf2-hf8 */
static const double W22[] = {
    1.0,
    0.8146172338565447,
    0.6636012376960885,
    0.540581004635767,
    0.44036660267178046,
    0.3587302237512899,
    0.2922278225730151,
    0.2380538204803507,
    0.19392274474868576,
    0.15797280990904317,
    0.12868737343265052,
    0.10483095217796996,
    0.08539710028576561,
    0.06956594961416032,
    0.056669621445291044,
    0.04616405026546052,
    0.03760603093086393,
    0.030634520893224042,
    0.024955408670558694,
    0.020329105980970156,
    0.016560440080994446,
    0.013490419890226748,
    0.010989528534539826,
    0.0089522593361944,
    0.0072926647372171085,
    0.005720249735992627,
    0.0036464405854682246,
    0.0022979774798079526,
    0.0014257162428270363,
    0.0008652771106745932,
    0.0005083534891379052,
    0.00028370514794507723,
    0.00017677669529663688,
    0.0001440053425328476,
    0.00011730923379467252,
    9.556212353964683e-05,
    7.78465527393245e-05,
    6.341514345777615e-05,
    5.165906874818956e-05,
    4.208236768725526e-05,
    3.428102195952591e-05,
    2.7925911282444464e-05,
    2.2748928601828183e-05,
    1.8531669290821308e-05,
    1.509621717643313e-05,
    1.2297638677963614e-05,
    1.0017868402809974e-05,
    8.160728247435942e-06,
    6.647869871181236e-06,
    5.415469365499923e-06,
    4.411534674558404e-06,
    3.593712173650999e-06,
    2.9274998701761677e-06,
    2.3847918463583037e-06,
    1.942692537204043e-06,
    1.58255082089091e-06,
    1.2891731721515574e-06,
    1.0501826834601687e-06,
    8.55496912644366e-07,
    6.969025285511675e-07,
    5.677088100759837e-07,
    4.6246538050008837e-07,
    3.7673226901739635e-07,
    3.068925988914511e-07,
};

static const inv_case INV_CASES[] = {
    {.id = "rope-default-hd8-theta1e4",
     .d = 8,
     .base = 10000.0,
     .type = PE_ROPE_DEFAULT,
     .want_att = 1.0,
     .want = W0},
    {.id = "rope-default-hd128-theta5e5",
     .d = 128,
     .base = 500000.0,
     .type = PE_ROPE_DEFAULT,
     .want_att = 1.0,
     .want = W1},
    {.id = "rope-partial-hd80-prf0.4",
     .d = 32,
     .base = 10000.0,
     .type = PE_ROPE_DEFAULT,
     .want_att = 1.0,
     .want = W2},
    {.id = "rope-linear-hd64-theta1e4-f2",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_LINEAR,
     .factor = 2.0,
     .want_att = 1.0,
     .want = W3},
    {.id = "rope-linear-hd8-theta1e4-f2.5",
     .d = 8,
     .base = 10000.0,
     .type = PE_ROPE_LINEAR,
     .factor = 2.5,
     .want_att = 1.0,
     .want = W4},
    {.id = "rope-dynamic-hd64-f2-L2048-seq1024",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_DYNAMIC,
     .factor = 2.0,
     .l0 = 2048.0,
     .seq_len = 1024,
     .want_att = 1.0,
     .want = W5},
    {.id = "rope-dynamic-hd64-f2-L2048-seq2049",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_DYNAMIC,
     .factor = 2.0,
     .l0 = 2048.0,
     .seq_len = 2049,
     .want_att = 1.0,
     .want = W6},
    {.id = "rope-dynamic-partial-hd64-prf0.5-f2-seq4096",
     .d = 32,
     .base = 10000.0,
     .type = PE_ROPE_DYNAMIC,
     .factor = 2.0,
     .l0 = 2048.0,
     .seq_len = 4096,
     .want_att = 1.0,
     .want = W7},
    {.id = "rope-yarn-hd64-theta1e4-f16-L2048",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_YARN,
     .factor = 16.0,
     .l0 = 2048.0,
     .want_att = 1.2772588722239782,
     .want = W8},
    {.id = "rope-yarn-hd64-f40-L4096-deepseek-v2",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_YARN,
     .factor = 40.0,
     .l0 = 4096.0,
     .has_mscale = 1,
     .mscale = 0.707,
     .has_msad = 1,
     .msad = 0.707,
     .want_att = 1.0,
     .want = W9},
    {.id = "rope-yarn-hd64-f40-mscale-only",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_YARN,
     .factor = 40.0,
     .l0 = 4096.0,
     .has_mscale = 1,
     .mscale = 0.707,
     .want_att = 1.3688879454113936,
     .want = W9},
    {.id = "rope-yarn-gpt-oss-truncate-false",
     .d = 64,
     .base = 150000.0,
     .type = PE_ROPE_YARN,
     .factor = 32.0,
     .l0 = 4096.0,
     .no_truncate = 1,
     .want_att = 1.3465735902799727,
     .want = W11},
    {.id = "rope-yarn-gpt-oss-truncate-true",
     .d = 64,
     .base = 150000.0,
     .type = PE_ROPE_YARN,
     .factor = 32.0,
     .l0 = 4096.0,
     .want_att = 1.3465735902799727,
     .want = W12},
    {.id = "rope-yarn-hd8-f4-L2048",
     .d = 8,
     .base = 10000.0,
     .type = PE_ROPE_YARN,
     .factor = 4.0,
     .l0 = 2048.0,
     .want_att = 1.138629436111989,
     .want = W13},
    {.id = "rope-yarn-hd4-theta10-singular",
     .d = 4,
     .base = 10.0,
     .type = PE_ROPE_YARN,
     .factor = 4.0,
     .l0 = 8192.0,
     .want_att = 1.138629436111989,
     .want = W14},
    {.id = "rope-yarn-partial-hd128-prf0.5-f8",
     .d = 64,
     .base = 10000.0,
     .type = PE_ROPE_YARN,
     .factor = 8.0,
     .l0 = 4096.0,
     .want_att = 1.2079441541679836,
     .want = W15},
    {.id = "rope-longrope-hd8-seq4096-short",
     .d = 8,
     .base = 10000.0,
     .type = PE_ROPE_LONGROPE,
     .factor = 32.0,
     .l0 = 4096.0,
     .seq_len = 4096,
     .short_f = LR8_SHORT,
     .long_f = LR8_LONG,
     .want_att = 1.1902380714238083,
     .want = W16},
    {.id = "rope-longrope-hd8-seq131072-long",
     .d = 8,
     .base = 10000.0,
     .type = PE_ROPE_LONGROPE,
     .factor = 32.0,
     .l0 = 4096.0,
     .seq_len = 131072,
     .short_f = LR8_SHORT,
     .long_f = LR8_LONG,
     .want_att = 1.1902380714238083,
     .want = W17},
    {.id = "rope-longrope-hd8-af1-long",
     .d = 8,
     .base = 10000.0,
     .type = PE_ROPE_LONGROPE,
     .factor = 32.0,
     .l0 = 4096.0,
     .seq_len = 8192,
     .has_af = 1,
     .af = 1.0,
     .short_f = LR8_SHORT,
     .long_f = LR8_LONG,
     .want_att = 1.0,
     .want = W17},
    {.id = "rope-longrope-hd96-phi3-like-long",
     .d = 96,
     .base = 10000.0,
     .type = PE_ROPE_LONGROPE,
     .factor = 32.0,
     .l0 = 4096.0,
     .seq_len = 8192,
     .short_f = W19_SHORT,
     .long_f = W19_LONG,
     .want_att = 1.1902380714238083,
     .want = W19},
    {.id = "rope-llama3-3.1-hd128",
     .d = 128,
     .base = 500000.0,
     .type = PE_ROPE_LLAMA3,
     .factor = 8.0,
     .l0 = 8192.0,
     .low = 1.0,
     .high = 4.0,
     .want_att = 1.0,
     .want = W20},
    {.id = "rope-llama3-3.2-hd64-f32",
     .d = 64,
     .base = 500000.0,
     .type = PE_ROPE_LLAMA3,
     .factor = 32.0,
     .l0 = 8192.0,
     .low = 1.0,
     .high = 4.0,
     .want_att = 1.0,
     .want = W21},
    {.id = "rope-llama3-hd128-lf2-hf8",
     .d = 128,
     .base = 500000.0,
     .type = PE_ROPE_LLAMA3,
     .factor = 8.0,
     .l0 = 8192.0,
     .low = 2.0,
     .high = 8.0,
     .want_att = 1.0,
     .want = W22},
};

static void params_from_case(const inv_case *c, pe_rope_params *p)
{
    pe_rope_params_init(p);
    p->rotary_dim = c->d;
    p->base = c->base;
    p->type = c->type;
    if (c->factor != 0.0)
        p->factor = c->factor;
    p->original_max_position_embeddings = c->l0;
    p->seq_len = c->seq_len;
    if (c->beta_fast != 0.0)
        p->beta_fast = c->beta_fast;
    if (c->beta_slow != 0.0)
        p->beta_slow = c->beta_slow;
    p->truncate = !c->no_truncate;
    p->has_mscale = c->has_mscale;
    p->mscale = c->mscale;
    p->has_mscale_all_dim = c->has_msad;
    p->mscale_all_dim = c->msad;
    p->has_attention_factor = c->has_af;
    p->attention_factor = c->af;
    if (c->low != 0.0)
        p->low_freq_factor = c->low;
    if (c->high != 0.0)
        p->high_freq_factor = c->high;
    p->short_factor = c->short_f;
    p->long_factor = c->long_f;
}

/* Every embedded oracle case, tolerance abs 1e-15 + rel 1e-12 (the oracle's). */
START_TEST(test_inv_freq_oracle)
{
    const inv_case *c = &INV_CASES[_i];
    pe_rope_params p;
    params_from_case(c, &p);
    double inv[64], att = 0.0;
    pe_rope_info info;
    ck_assert_uint_le(c->d / 2, N_ELEMS(inv));
    ck_assert_msg(pe_rope_inv_freq(&p, inv, &att, &info) == PE_OK, "%s failed", c->id);
    for (size_t j = 0; j < c->d / 2; j++)
        ck_assert_msg(close_to(inv[j], c->want[j], 1e-15, 1e-12),
                      "%s: inv_freq[%zu] = %.17g, want %.17g", c->id, j, inv[j], c->want[j]);
    ck_assert_msg(close_to(att, c->want_att, 1e-15, 1e-12),
                  "%s: attention_factor = %.17g, want %.17g", c->id, att, c->want_att);
}
END_TEST

/*
 * YaRN correction range (oracle `intermediate.correction_range`):
 * rope-yarn-gpt-oss-truncate-false (head_dim 64, base 150000, L0 4096, factor 32) keeps the
 * fractional bounds 8.092779115512402 / 17.39802450158856 (also quoted in vllm issue #27722);
 * rope-yarn-gpt-oss-truncate-true floors/ceils them to 8 / 18.
 * rope-yarn-hd4-theta10-singular: c(32) = 4 ln(8192/(64 pi)) / (2 ln 10) = 3.22 -> floor 3,
 * c(1) = 2 log10(8192/(2 pi)) = 6.23 -> ceil 7 -> clamp to d-1 = 3; lo == hi, so hi = 3 + 0.001
 * and every ramp_j (j = 0, 1) is 0: inv_freq is plain RoPE exactly.
 */
START_TEST(test_yarn_bounds)
{
    pe_rope_params p = scaled_params(64, PE_ROPE_YARN, 32.0, 4096.0);
    p.base = 150000.0;
    p.truncate = 0;
    double inv[32], att;
    pe_rope_info info;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_close(info.ramp_low, 8.092779115512402, 1e-12, 0.0);
    ck_close(info.ramp_high, 17.39802450158856, 1e-12, 0.0);

    p.truncate = 1;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert(info.ramp_low == 8.0 && info.ramp_high == 18.0); /* exact: floor/ceil */

    p = scaled_params(4, PE_ROPE_YARN, 4.0, 8192.0);
    p.base = 10.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert(info.ramp_low == 3.0);
    ck_assert(info.ramp_high == 3.0 + 0.001); /* exact: same double expression */
    ck_assert(inv[0] == 1.0);
    ck_assert(inv[1] == pe_rope_base_freq(10.0, 4, 1)); /* ramp 0: frequency kept, exact */
    ck_close(inv[1], 1.0 / sqrt(10.0), 1e-15, 1e-12);   /* 10^(-2/4) */
    ck_close(att, 0.1 * log(4.0) + 1.0, 1e-15, 1e-12);  /* g(4, 1) */
}
END_TEST

/*
 * Dynamic NTK (docs/conventions.md#dynamic-ntk): for seq_len <= L0, L' = L0 and the result is plain
 * RoPE, bit for bit (tolerance 0). Past L0 the base grows: rope-dynamic-hd64-f2-L2048-seq2049's
 * `intermediate.effective_base` is 10010.080803891618 (rel 1e-12).
 */
START_TEST(test_dynamic_short_is_plain)
{
    pe_rope_params p, plain = plain_params(64);
    double want[32], got[32], att;
    pe_rope_info info;
    ck_assert_int_eq(pe_rope_inv_freq(&plain, want, &att, NULL), PE_OK);

    static const size_t seqs[] = {0, 1, 1024, 2047, 2048};
    for (size_t s = 0; s < N_ELEMS(seqs); s++) {
        p = scaled_params(64, PE_ROPE_DYNAMIC, 2.0, 2048.0);
        p.seq_len = seqs[s];
        ck_assert_int_eq(pe_rope_inv_freq(&p, got, &att, &info), PE_OK);
        ck_assert(info.effective_base == 10000.0);
        ck_assert(att == 1.0);
        for (size_t j = 0; j < 32; j++)
            ck_assert_msg(got[j] == want[j], "seq_len %zu pair %zu: %.17g != %.17g", seqs[s], j,
                          got[j], want[j]);
    }
    p.seq_len = 2049;
    ck_assert_int_eq(pe_rope_inv_freq(&p, got, &att, &info), PE_OK);
    ck_close(info.effective_base, 10010.080803891618, 0.0, 1e-12);
    ck_assert(got[1] < want[1]); /* a larger base lowers every frequency but pair 0 */
    ck_assert(got[0] == 1.0);
}
END_TEST

/*
 * LongRoPE list choice (docs/conventions.md#longrope; oracle rope-longrope-hd8-seq4096-short and
 * rope-longrope-hd8-seq131072-long use these lists): long iff seq_len > L0 strictly.
 * Hand values, hd 8, base 10000: theta_1 = 1/(lambda_1 * 10000^(2/8)) = 1/(10 lambda_1):
 * short 1.05 -> 0.09523809523809523, long 1.9 -> 0.05263157894736842; theta_3 long =
 * 1/(14 * 1000) = 7.142857142857143e-05. A = sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12) =
 * sqrt(17/12) = 1.1902380714238083 for both lists.
 */
START_TEST(test_longrope_switch)
{
    pe_rope_params p = scaled_params(8, PE_ROPE_LONGROPE, 32.0, 4096.0);
    p.short_factor = LR8_SHORT;
    p.long_factor = LR8_LONG;
    double inv[4], att;
    pe_rope_info info;

    p.seq_len = 4096;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(info.longrope_long, 0);
    ck_close(inv[1], 0.09523809523809523, 1e-15, 1e-12);
    ck_close(att, 1.1902380714238083, 1e-15, 1e-12);

    p.seq_len = 4097;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(info.longrope_long, 1);
    ck_close(inv[1], 0.05263157894736842, 1e-15, 1e-12);
    ck_close(inv[3], 7.142857142857143e-05, 1e-15, 1e-12);
    ck_close(att, 1.1902380714238083, 1e-15, 1e-12);

    /* Only the selected list is needed (and read). */
    p.short_factor = NULL;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    p.seq_len = 10;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_ERR_ARG);
}
END_TEST

static void llama31_params(pe_rope_params *p)
{
    *p = scaled_params(128, PE_ROPE_LLAMA3, 8.0, 8192.0);
    p->base = 500000.0;
    p->low_freq_factor = 1.0;
    p->high_freq_factor = 4.0;
}

/*
 * Llama 3.1 8B bands (docs/conventions.md#llama3; oracle rope-llama3-3.1-hd128
 * `intermediate.bands`): pairs 0-28 high (theta kept: equal to plain RoPE, tolerance 0),
 * 29-34 medium (strictly between theta0/8 and theta0), 35-63 low (theta0 / 8, tolerance 0).
 */
START_TEST(test_llama3_bands)
{
    pe_rope_params p;
    llama31_params(&p);
    double inv[64], att;
    pe_rope_info info;
    pe_rope_band bands[64];
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 64, bands), PE_OK);
    size_t count[3] = {0, 0, 0};
    for (size_t j = 0; j < 64; j++) {
        double f0 = pe_rope_base_freq(500000.0, 128, j);
        ck_assert_uint_eq(bands[j].pair, j);
        if (j <= 28) {
            ck_assert_int_eq(bands[j].cls, PE_BAND_HIGH);
            ck_assert(inv[j] == f0);
            count[0]++;
        } else if (j <= 34) {
            ck_assert_int_eq(bands[j].cls, PE_BAND_MEDIUM);
            ck_assert(inv[j] > f0 / 8.0 && inv[j] < f0);
            count[1]++;
        } else {
            ck_assert_int_eq(bands[j].cls, PE_BAND_LOW);
            ck_assert(inv[j] == f0 / 8.0);
            count[2]++;
        }
        ck_assert_int_eq(bands[j].has_rotations, 1);
        ck_assert_int_eq(bands[j].has_ramp, 0);
    }
    ck_assert(count[0] == 29 && count[1] == 6 && count[2] == 29);
}
END_TEST

/* Band counts of the other llama3 oracle cases (`intermediate.bands`):
 * rope-llama3-3.2-hd64-f32: 15 high, 3 medium, 14 low; rope-llama3-hd128-lf2-hf8: 25 / 7 / 32. */
START_TEST(test_llama3_band_counts_other)
{
    static const struct {
        size_t d;
        double factor, low, high;
        size_t high_n, medium_n, low_n;
    } cases[] = {{64, 32.0, 1.0, 4.0, 15, 3, 14}, {128, 8.0, 2.0, 8.0, 25, 7, 32}};
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        pe_rope_params p;
        llama31_params(&p);
        p.rotary_dim = cases[i].d;
        p.factor = cases[i].factor;
        p.low_freq_factor = cases[i].low;
        p.high_freq_factor = cases[i].high;
        double inv[64], att;
        pe_rope_info info;
        pe_rope_band bands[64];
        size_t n = cases[i].d / 2, h = 0, m = 0, l = 0;
        ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
        ck_assert_int_eq(pe_rope_bands(&p, inv, &info, n, bands), PE_OK);
        for (size_t j = 0; j < n; j++) {
            h += bands[j].cls == PE_BAND_HIGH;
            m += bands[j].cls == PE_BAND_MEDIUM;
            l += bands[j].cls == PE_BAND_LOW;
        }
        ck_assert(h == cases[i].high_n && m == cases[i].medium_n && l == cases[i].low_n);
    }
}
END_TEST

/*
 * yarn bands: rope-yarn-hd8-f4-L2048 has ramp [0, 0, 0.5, 1] (oracle `intermediate.ramp`), so
 * classes extrapolate, extrapolate, blend, interpolate. Pair 0 keeps theta 1: wavelength 2 pi,
 * rotations over L0 = 2048 / (2 pi) = 325.94932345220167 (rel 1e-15).
 */
START_TEST(test_yarn_bands)
{
    pe_rope_params p = scaled_params(8, PE_ROPE_YARN, 4.0, 2048.0);
    double inv[4], att;
    pe_rope_info info;
    pe_rope_band b[4];
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 4, b), PE_OK);
    static const pe_rope_band_class want[] = {PE_BAND_EXTRAPOLATE, PE_BAND_EXTRAPOLATE,
                                              PE_BAND_BLEND, PE_BAND_INTERPOLATE};
    static const double want_ramp[] = {0.0, 0.0, 0.5, 1.0};
    for (size_t j = 0; j < 4; j++) {
        ck_assert_int_eq(b[j].cls, want[j]);
        ck_assert_int_eq(b[j].has_ramp, 1);
        ck_close(b[j].ramp, want_ramp[j], 1e-15, 0.0);
        ck_close(b[j].wavelength, PE_ROPE_TWO_PI / inv[j], 0.0, 1e-15);
    }
    ck_close(b[0].wavelength, 6.283185307179586, 0.0, 1e-15);
    ck_close(b[0].rotations, 325.94932345220167, 0.0, 1e-15);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 3, b), PE_ERR_ARG); /* n must be d/2 */
}
END_TEST

/* Classes of the other types (docs/api.md: short | long for longrope, unchanged otherwise) and the
 * strings; rotations only with a known original length (L0 > 0). */
START_TEST(test_bands_other_types)
{
    static const double shortf[] = {1.0, 1.05};
    static const double longf[] = {1.0, 1.9};
    pe_rope_params p;
    double inv[2], att;
    pe_rope_info info;
    pe_rope_band b[2];

    p = scaled_params(4, PE_ROPE_LONGROPE, 32.0, 4096.0);
    p.short_factor = shortf;
    p.long_factor = longf;
    p.seq_len = 5000;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 2, b), PE_OK);
    ck_assert(b[0].cls == PE_BAND_LONG && b[1].cls == PE_BAND_LONG);
    p.seq_len = 100;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 2, b), PE_OK);
    ck_assert(b[0].cls == PE_BAND_SHORT && b[1].cls == PE_BAND_SHORT);
    ck_assert_int_eq(b[1].has_rotations, 1);

    p = scaled_params(4, PE_ROPE_LINEAR, 2.0, 0.0);
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 2, b), PE_OK);
    ck_assert(b[0].cls == PE_BAND_UNCHANGED && b[0].has_rotations == 0 && b[0].has_ramp == 0);
    ck_close(b[1].wavelength, PE_ROPE_TWO_PI * 200.0, 0.0, 1e-15); /* theta_1 = 0.01 / 2 */

    static const double explicit_freq[] = {0.5, 0.0};
    p = plain_params(4);
    p.inv_freq = explicit_freq;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_assert_int_eq(pe_rope_bands(&p, inv, &info, 2, b), PE_OK);
    ck_assert(b[0].cls == PE_BAND_UNCHANGED);
    ck_close(b[0].wavelength, 4.0 * 3.14159265358979323846, 0.0, 1e-15);
    ck_assert(isinf(b[1].wavelength)); /* theta 0 never turns */

    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_UNCHANGED), "unchanged");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_EXTRAPOLATE), "extrapolate");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_BLEND), "blend");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_INTERPOLATE), "interpolate");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_HIGH), "high");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_MEDIUM), "medium");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_LOW), "low");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_SHORT), "short");
    ck_assert_str_eq(pe_rope_band_class_str(PE_BAND_LONG), "long");
    ck_assert_str_eq(pe_rope_band_class_str((pe_rope_band_class)99), "unknown");
}
END_TEST

/*
 * decay (docs/api.md, RoFormer arXiv:2104.09864 Figure 2), hand-derived:
 * - r = 0: every partial sum S_j = j, so upper_bound = (1/n) sum j = (n+1)/2 (32.5 for n = 64),
 *   upper_bound_rel = 1 and mean_cos = 1.
 * - n = 2, theta = (1, 0.01), r = 1: |S_1| = 1, |S_2| = |e^{i} + e^{0.01 i}| = 2 cos(0.495), so
 *   upper_bound = (1 + 2 cos 0.495)/2 = 1.3799687098362043, upper_bound_rel = that / 1.5,
 *   mean_cos = (cos 1 + cos 0.01)/2 = 0.7701261531424025.
 * - n = 1, theta 0.5, r = 3: |S_1| = 1, mean_cos = cos 1.5.
 * Tolerance 1e-14 absolute.
 */
START_TEST(test_decay_hand)
{
    pe_rope_params p = plain_params(128);
    double inv[64], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    const int64_t zero = 0;
    pe_rope_decay_point pt;
    ck_assert_int_eq(pe_rope_decay(inv, 64, &zero, 1, &pt), PE_OK);
    ck_assert(pt.distance == 0);
    ck_close(pt.upper_bound, 32.5, 1e-14, 0.0);
    ck_close(pt.upper_bound_rel, 1.0, 1e-14, 0.0);
    ck_close(pt.mean_cos, 1.0, 1e-14, 0.0);

    static const double two[] = {1.0, 0.01};
    const int64_t one = 1;
    ck_assert_int_eq(pe_rope_decay(two, 2, &one, 1, &pt), PE_OK);
    ck_close(pt.upper_bound, 1.3799687098362043, 1e-14, 0.0);
    ck_close(pt.upper_bound_rel, 1.3799687098362043 / 1.5, 1e-14, 0.0);
    ck_close(pt.mean_cos, 0.7701261531424025, 1e-14, 0.0);

    static const double half[] = {0.5};
    const int64_t three = 3;
    ck_assert_int_eq(pe_rope_decay(half, 1, &three, 1, &pt), PE_OK);
    ck_close(pt.upper_bound, 1.0, 1e-14, 0.0);
    ck_close(pt.mean_cos, cos(1.5), 1e-14, 0.0);

    ck_assert_int_eq(pe_rope_decay(half, 0, &three, 1, &pt), PE_ERR_ARG);
}
END_TEST

/*
 * decay shape for head_dim 128, base 10000 (the RoFormer figure's setting). By the triangle
 * inequality |S_j| <= j, so upper_bound_rel <= 1 (tolerance 1e-15); it falls from 1 at r = 0
 * (independent float64 Python evaluation of the same sums: 0.970 at r = 1, 0.552 at 10,
 * 0.315 at 100 -- checked here only as an ordering). mean_cos is positive up to r = 1706
 * (0.00107) and first negative at r = 1707 (-0.00780), per the same Python evaluation; the two
 * curves are different quantities (docs/conventions.md#rope-analysis).
 */
START_TEST(test_decay_shape)
{
    pe_rope_params p = plain_params(128);
    double inv[64], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    static int64_t dist[1708];
    static pe_rope_decay_point pts[1708];
    for (size_t r = 0; r < N_ELEMS(dist); r++)
        dist[r] = (int64_t)r;
    ck_assert_int_eq(pe_rope_decay(inv, 64, dist, N_ELEMS(dist), pts), PE_OK);
    for (size_t r = 0; r < N_ELEMS(dist); r++) {
        ck_assert(pts[r].distance == (int64_t)r);
        ck_assert(pts[r].upper_bound_rel <= 1.0 + 1e-15);
        ck_close(pts[r].upper_bound_rel * 32.5, pts[r].upper_bound, 0.0, 1e-15);
        if (r < 1707)
            ck_assert_msg(pts[r].mean_cos > 0.0, "mean_cos(%zu) = %g", r, pts[r].mean_cos);
    }
    ck_assert(pts[1707].mean_cos < 0.0);
    ck_assert(pts[1].upper_bound_rel < 1.0);
    ck_assert(pts[10].upper_bound_rel < pts[1].upper_bound_rel);
    ck_assert(pts[100].upper_bound_rel < pts[10].upper_bound_rel);
    ck_close(pts[100].upper_bound_rel, 0.3147, 5e-5, 0.0);
}
END_TEST

/*
 * float32_error (docs/conventions.md#precision):
 * - position 0 gives exactly 0 (0 * anything is 0 in both precisions);
 * - frequencies and positions exact in float32 (0.5, 0.25; positions < 2^24 whose products are
 *   exact) give exactly 0;
 * - theta 0.1 at position 1: the float32 angle is (float)0.1 = 13421773 / 2^27
 *   = 0.100000001490116119384765625, so the angle error is that minus the double 0.1:
 *   1.4901161138336505e-09 (exact in double by Sterbenz; tolerance rel 1e-12);
 * - theta 0.1 at position 13: the float32 product 13 * 13421773 / 2^27 = 10905190.5625 / 2^23
 *   rounds to 10905191 / 2^23 = 1.30000007152557373046875; minus the double 13 * 0.1 this is
 *   7.152557368605983e-08 (rounding 13 * 0.1 straight to float32 would give -4.77e-08 instead);
 * - head_dim 128, base 500000 at position 131071: between 1e-4 and 5e-2 for angle, cos and sin
 *   (the doc estimates cos/sin errors up to ~4e-3 there).
 */
START_TEST(test_float32_error)
{
    pe_rope_params p = plain_params(128);
    p.base = 500000.0;
    double inv[64], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    pe_rope_f32_error e;
    const int64_t zero = 0;
    ck_assert_int_eq(pe_rope_float32_error(inv, 64, &zero, 1, &e), PE_OK);
    ck_assert(e.angle_max_abs == 0.0 && e.cos_max_abs == 0.0 && e.sin_max_abs == 0.0);

    const int64_t far = 131071;
    ck_assert_int_eq(pe_rope_float32_error(inv, 64, &far, 1, &e), PE_OK);
    ck_assert_msg(e.angle_max_abs > 1e-4 && e.angle_max_abs < 5e-2, "angle %g", e.angle_max_abs);
    ck_assert_msg(e.cos_max_abs > 1e-4 && e.cos_max_abs < 5e-2, "cos %g", e.cos_max_abs);
    ck_assert_msg(e.sin_max_abs > 1e-4 && e.sin_max_abs < 5e-2, "sin %g", e.sin_max_abs);

    static const double exact[] = {0.5, 0.25};
    static const int64_t small[] = {0, 3, 1000, 4095};
    ck_assert_int_eq(pe_rope_float32_error(exact, 2, small, N_ELEMS(small), &e), PE_OK);
    ck_assert(e.angle_max_abs == 0.0 && e.cos_max_abs == 0.0 && e.sin_max_abs == 0.0);

    static const double tenth[] = {0.1};
    const int64_t one = 1;
    ck_assert_int_eq(pe_rope_float32_error(tenth, 1, &one, 1, &e), PE_OK);
    ck_close(e.angle_max_abs, 1.4901161138336505e-09, 0.0, 1e-12);
    const int64_t thirteen = 13;
    pe_rope_f32_error e13;
    ck_assert_int_eq(pe_rope_float32_error(tenth, 1, &thirteen, 1, &e13), PE_OK);
    ck_close(e13.angle_max_abs, 7.152557368605983e-08, 0.0, 1e-9);
    ck_close(e.sin_max_abs, fabs(sin(0.100000001490116119384765625) - sin(0.1)), 1e-20, 1e-6);

    ck_assert_int_eq(pe_rope_float32_error(inv, 64, small, 0, &e), PE_OK); /* no positions */
    ck_assert(e.angle_max_abs == 0.0);
    const int64_t neg = -1;
    ck_assert_int_eq(pe_rope_float32_error(inv, 64, &neg, 1, &e), PE_ERR_ARG);
}
END_TEST

/* ---- rotation ------------------------------------------------------------------------------ */

typedef struct {
    const char *id; /* oracle case id (rotation.json) */
    size_t head_dim, d;
    pe_rope_layout layout;
    const double *inv; /* expected inv_freq (checked against the params in test_inv_freq_oracle) */
    double att;
    const double *q, *k;   /* one vector, rotated at every position */
    const double *qr, *kr; /* [5][head_dim] for ROT_POS */
    const double *scores;  /* [5][5]: q_rotated[a] . k_rotated[b] */
} rot_case;

static const int64_t ROT_POS[] = {0, 1, 9, 100, 4095};

/* q and k of rope-rot-default-hd8-half, rope-rot-default-hd8-interleaved,
 * rope-rot-partial-hd8-rd4-half and rope-rot-partial-hd8-prf0.5-interleaved (the same vectors in
 * all four); expected inv_freq: W0 (the two default cases), R2_INV (the two partial ones) */
static const double ROT_Q[] = {
    1.6243, -0.6118, -0.5282, -1.073, 0.8654, -2.3015, 1.7448, -0.7612,
};
static const double ROT_K[] = {
    -0.4168, -0.0563, -2.1362, 1.6403, -1.7934, -0.8417, 0.5029, -1.2453,
};
/* rope-rot-default-hd8-half: rows for positions [0, 1, 9, 100, 4095] */
static const double R0_QR[] = {
    1.6243,
    -0.6118,
    -0.5282,
    -1.073,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    0.14940404516886596,
    -0.3789769399044211,
    -0.5456212994215366,
    -1.0722382636269112,
    1.8343789361217544,
    -2.3510801706919056,
    1.7394308487598906,
    -0.7622726192211984,
    -1.836596221507497,
    1.4225259039196605,
    -0.682882326217625,
    -1.0661058362787559,
    -0.11908807305681413,
    -1.9098747452850284,
    1.6902644788729382,
    -0.7708260412391204,
    1.8388733700732702,
    -0.7387206252229108,
    -1.753586252252369,
    -0.991646272591756,
    -0.07623895877681963,
    2.2639552398115717,
    0.4982544891031993,
    -0.8645184266716798,
    0.7563496642509687,
    1.7623639058946754,
    0.7153676861039518,
    0.000491443002086811,
    -1.6778566194366689,
    -1.6016475745930074,
    -1.6767740914262357,
    1.3155813158006522,
};
static const double R0_KR[] = {
    -0.4168,
    -0.0563,
    -2.1362,
    1.6403,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    1.283896063068641,
    0.028011052286482402,
    -2.1411221070738327,
    1.6415444796425183,
    -1.3197032618118532,
    -0.8431156272717306,
    0.4815132112410942,
    -1.2436590776234353,
    1.1188523845860996,
    0.6243296186198144,
    -2.172754150651902,
    1.6514411169950785,
    1.4622500270152157,
    -0.5673104153054456,
    0.3088660726349407,
    -1.2304870649860757,
    -1.2675306467357481,
    -0.41066284194857827,
    -1.5773695440554114,
    1.7564278860558407,
    -1.335429466346185,
    0.7368748945667215,
    -1.525832288125541,
    -1.0753219336949333,
    -1.7619937633246645,
    0.7215306253467751,
    2.1783090436697696,
    -1.9649916277790433,
    0.5342132327123565,
    -0.43706079289578426,
    -0.26688679297877366,
    -0.6165744746243277,
};
static const double R0_SC[] = {
    0.9362815099999996,   4.023035638007831,    4.857691863055511,  -7.554422381770742,
    -0.8737097664812736,  -0.12102454612457081, 0.9362815100000005, 4.836647820854172,
    -7.072932146992715,   2.3949961197503353,   4.026502717658471,  0.9338577270316726,
    0.9362815100000004,   -2.0500957686322367,  5.6651027300931895, 0.9528739243079547,
    3.9739598337002247,   3.590515910703048,    0.9362815100000005, -6.2745206138370655,
    -0.06619824337276259, 0.6106806119032726,   -3.288485866108177, -0.6057218795078996,
    0.9362815100000004,
};
/* rope-rot-default-hd8-interleaved: rows for positions [0, 1, 9, 100, 4095] */
static const double R1_QR[] = {
    1.6243,
    -0.6118,
    -0.5282,
    -1.073,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    1.3924249839270906,
    1.0362443698933386,
    -0.4184399440378066,
    -1.1203714800161761,
    0.8883713467791666,
    -2.292731070191567,
    1.745560327473206,
    -0.7594548196908316,
    -1.227814795108374,
    1.2268335497992306,
    0.5121753887897248,
    -1.0807407696196596,
    1.0687529761278023,
    -2.214404318551146,
    1.7515800435915578,
    -0.7454661836004338,
    1.0908700450259345,
    -1.3500563969201862,
    -0.14053707032611157,
    1.1876757014707986,
    2.404223087033662,
    -0.5152967667027701,
    1.8120764643286649,
    -0.5832078252442474,
    -0.7176318277178977,
    -1.5803968773210952,
    0.7099131333559391,
    -0.9624695231999569,
    -1.111279419709752,
    2.1933712547878335,
    -1.6307558850266535,
    -0.9820324452129552,
};
static const double R1_KR[] = {
    -0.4168,
    -0.0563,
    -2.1362,
    1.6403,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    -0.17782318464115607,
    -0.3811441262883075,
    -2.2892846511927107,
    1.4188411876645914,
    -1.7848934710298794,
    -0.8595916164522016,
    0.504145048342471,
    -1.2447964774338687,
    0.40296136387264425,
    -0.12047435090465683,
    -2.6127743440817546,
    -0.6537161133918594,
    -1.7104908565237447,
    -0.9994816055079087,
    0.5140871813841427,
    -1.2407235267925356,
    -0.38792289156398607,
    0.16250464670475084,
    2.684782428604951,
    -0.21419113206223317,
    -0.26071202743111543,
    -1.963866515003695,
    0.6247101484686143,
    -1.1888724617890356,
    -0.028678538778822208,
    0.419606329091342,
    -2.438929572102295,
    -1.1426097637972972,
    1.690888140508211,
    1.0322982835831342,
    -1.3065415209936473,
    0.3108532675067241,
};
static const double R1_SC[] = {
    0.9362815099999996,  1.8920039904525283,  5.4712073399495855,  4.37138409099626,
    -1.2178498820642036, 0.5776007225709751,  0.93628151,          4.8735817587469095,
    5.009167279801527,   -0.6857969033044062, -0.6678045022955509, -1.1483039742514782,
    0.9362815099999996,  8.332879973913471,   -2.4633223878852073, -0.370753153931914,
    0.11862375414637194, -1.7491924584677987, 0.93628151,          -0.6275794643726372,
    -2.1575441087975094, -1.762409214877641,  -1.2357624718466484, -1.7353241515446718,
    0.9362815099999995,
};
/* rope-rot-partial-hd8-rd4-half: rows for positions [0, 1, 9, 100, 4095] */
static const double R2_INV[] = {
    1.0,
    0.01,
};
static const double R2_QR[] = {
    1.6243,
    -0.6118,
    -0.5282,
    -1.073,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    1.3220780095971505,
    -0.601039589087355,
    1.081413642663915,
    -1.079064248480925,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    -1.262267900474585,
    -0.5128841987672723,
    1.1506630599056717,
    -1.123644978921213,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    1.1332022126227104,
    0.572341415968745,
    -1.277966539196936,
    -1.094556322701985,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    -0.6342139745303826,
    0.49110877404101794,
    -1.5859124706333496,
    1.1333315543387683,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
};
static const double R2_KR[] = {
    -0.4168,
    -0.0563,
    -2.1362,
    1.6403,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    1.5723523166607878,
    -0.07269991164149184,
    -1.5049188922634515,
    1.6396549950667427,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    1.2601266013269738,
    -0.2034999231180728,
    1.774585480789283,
    1.6286011056397263,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    -1.4411127885081734,
    -1.410683876200769,
    -1.631032375766403,
    0.8388830558708251,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    -2.104046874241891,
    0.23488476921944818,
    0.5568298043324612,
    -1.6243715477650817,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
};
static const double R2_SC[] = {
    0.9362815099999996,  3.844544493081322,   1.697046324194715,   0.6941931450162228,
    0.09807379846396358, -2.3867620257763913, 0.9362815099999996,  4.16053936995948,
    -1.5158695767789774, 1.642621931718566,   -1.535626176186558,  -3.3109414314766137,
    0.9362815100000005,  1.9337589155205053,  7.211889033834252,   2.640596350964242,
    4.079271670510569,   -0.5284032140692826, 0.9362815099999996,  1.0270264681107593,
    7.694067398954596,   5.422577476080014,   0.34282375026490397, 5.969128332699156,
    0.9362815099999996,
};
/* rope-rot-partial-hd8-prf0.5-interleaved: rows for positions [0, 1, 9, 100, 4095] */
static const double R3_QR[] = {
    1.6243,
    -0.6118,
    -0.5282,
    -1.073,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    1.3924249839270906,
    1.0362443698933386,
    -0.5174437690525218,
    -1.0782282624141886,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    -1.227814795108374,
    1.2268335497992306,
    -0.42962255028746954,
    -1.1161311322082592,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    1.0908700450259345,
    -1.3500563969201862,
    0.6175106887393215,
    -1.024209348372045,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
    -0.7176318277178977,
    -1.5803968773210952,
    0.4080075993787994,
    1.124212630621605,
    0.8654,
    -2.3015,
    1.7448,
    -0.7612,
};
static const double R3_KR[] = {
    -0.4168,
    -0.0563,
    -2.1362,
    1.6403,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    -0.17782318464115607,
    -0.3811441262883075,
    -2.152495917508114,
    1.6188563417150095,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    0.40296136387264425,
    -0.12047435090465683,
    -2.2749820125097195,
    1.441662711162783,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    -0.38792289156398607,
    0.16250464670475084,
    -2.534458642175913,
    -0.9112924454311189,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
    -0.028678538778822208,
    0.419606329091342,
    2.302374400558544,
    -1.3975001429884317,
    -1.7934,
    -0.8417,
    0.5029,
    -1.2453,
};
static const double R3_SC[] = {
    0.9362815099999996,   1.5548077366181374,   2.5935242311517728, 3.797540823123559,
    2.19065226237504,     0.9085887392861974,   0.9362815099999996, 2.2695328598074447,
    4.132808571481983,    2.9209033154973034,   1.7401987435103585, 1.0791848295785975,
    0.9362815099999996,   4.992192542540743,    3.331186981622419,  -1.1672569170398082,
    -0.45610648497696393, -0.06861801613165153, 0.9362815099999996, 4.465843214957815,
    3.571091904201625,    3.8822210885427153,   2.80429133734273,   0.1735455838215597,
    0.9362815099999996,
};
/* rope-rot-longrope-hd8-long-half: rows for positions [0, 1, 9, 100, 4095]; expected inv_freq:
 * W17 (the long list, as in rope-longrope-hd8-seq131072-long) */
static const double R4_Q[] = {
    1.6905, -0.4659, 0.0328, 0.4075, -0.7889, 0.0021, -0.0009, -1.7547,
};
static const double R4_K[] = {
    0.0912, 1.0913, -1.947, -1.3863, -2.2965, 2.4098, 1.7278, 2.2046,
};
static const double R4_QR[] = {
    2.012097459741948,   -0.5545319174763523,   0.03903980874270092,     0.48502201410520185,
    -0.9389788145462424, 0.0024994999499899973, -0.0010712142642814275,  -2.0885107439273565,
    1.8772643249199787,  -0.5538955369116598,   0.039041760409929925,    0.4851711922066259,
    1.1857892123178568,  -0.026676378864906265, -0.000997552384737328,   -2.088476094169973,
    -1.4463123587072766, -0.494614658597149,    0.039052369697534936,    0.4863645278410114,
    1.6847545704693194,  -0.25073538741235896,  -0.00040815153279367294, -2.088198512528121,
    1.2596030030014005,  -0.28808029160577797,  0.03854788084308103,     0.4999274481795839,
    -1.8285561726390909, 0.473837145640071,     0.006270171383167555,    -2.0849930523201547,
    -1.069683112327294,  0.1758657002745789,    0.00602918707498012,     1.0666368691016266,
    -1.945763459639547,  -0.525911732581554,    0.038586306766540374,    -1.859948728094338,
};
static const double R4_KR[] = {
    0.10854971211385132, 1.298906807344802,    -2.3173935250621547, -1.6500270384148257,
    -2.733381731024776,  2.8682357045170934,   2.056493339806056,   2.623998852260928,
    2.3587110768177677,  1.1462180943100178,   -2.3212695739300173, -1.6502144626948607,
    -1.3855110189374775, 2.9325959542885625,   2.052117241244618,   2.623880986492981,
    1.0275742109516217,  -0.15250814168825322, -2.3519793193441085, -1.6517135537542114,
    2.535202155349185,   3.1449445492014845,   2.0168467686079405,  2.6229375784626106,
    -1.2904861272908938, 3.123861057793813,    -2.661985790184217,  -1.6687276356344602,
    -2.412012496395852,  0.3942423650911384,   1.5853420008073895,  2.6121461066020966,
    -2.734587942706254,  -3.133529408422352,   -2.3346038709981616, -2.3365658281352917,
    0.07202437855045282, 0.3081045234747426,   -2.0369345527500546, 2.03676688282118,
};
static const double R4_SC[] = {
    -4.3013387675,       -0.9545765851562207, -6.593622279586247,  -8.433536981818552,
    -9.3075305169524,    -10.206641935637833, -4.301338767499999,  -1.437321965551118,
    -13.394064971004404, -8.79719828471912,   -12.496984883186645, -13.421199660125986,
    -4.301338767500001,  -10.212054481330732, 0.06911186359825638, -0.25259047956331226,
    0.1915203065765203,  -8.17985926328116,   -4.301338767499999,  -8.045020525305787,
    -2.6527076721590013, -7.743178298067839,  -14.289532526434595, -0.17760104283057299,
    -4.3013387675,
};

static const rot_case ROT_CASES[] = {
    {"rope-rot-default-hd8-half", 8, 8, PE_ROPE_HALF, W0, 1.0, ROT_Q, ROT_K, R0_QR, R0_KR, R0_SC},
    {"rope-rot-default-hd8-interleaved", 8, 8, PE_ROPE_INTERLEAVED, W0, 1.0, ROT_Q, ROT_K, R1_QR,
     R1_KR, R1_SC},
    {"rope-rot-partial-hd8-rd4-half", 8, 4, PE_ROPE_HALF, R2_INV, 1.0, ROT_Q, ROT_K, R2_QR, R2_KR,
     R2_SC},
    {"rope-rot-partial-hd8-prf0.5-interleaved", 8, 4, PE_ROPE_INTERLEAVED, R2_INV, 1.0, ROT_Q,
     ROT_K, R3_QR, R3_KR, R3_SC},
    {"rope-rot-longrope-hd8-long-half", 8, 8, PE_ROPE_HALF, W17, 1.1902380714238083, R4_Q, R4_K,
     R4_QR, R4_KR, R4_SC},
};
/* rope-table-default-hd8-half: positions [0, 1, 7, 4095, 131071], [5][4] row-major */
static const double CS_DEFAULT_COS[] = {
    1.0,
    1.0,
    1.0,
    1.0,
    0.5403023058681398,
    0.9950041652780257,
    0.9999500004166653,
    0.9999995000000417,
    0.7539022543433046,
    0.7648421872844884,
    0.9975510002532796,
    0.9999755001000415,
    -0.0659759965580649,
    0.4598633393467112,
    -0.9940331897394565,
    -0.5789081297568104,
    -0.8179834993879491,
    0.9303429898442581,
    -0.7863836902572383,
    0.640312376311751,
};
static const double CS_DEFAULT_SIN[] = {
    0.0,
    0.0,
    0.0,
    0.0,
    0.8414709848078965,
    0.09983341664682815,
    0.009999833334166664,
    0.0009999998333333417,
    0.6569865987187891,
    0.6442176872376911,
    0.06994284733753277,
    0.006999942833473391,
    -0.9978212103769744,
    0.8879897010241118,
    -0.10907803489429785,
    -0.8153927748646489,
    -0.5752416837547893,
    0.36669049789658675,
    -0.6177383683222274,
    -0.768114614326533,
};
/* rope-table-dynamic-hd8-seq131072: positions [0, 1, 7, 4095, 131071], [5][4] row-major */
static const double CS_DYNAMIC_COS[] = {
    1.0,
    1.0,
    1.0,
    1.0,
    0.5403023058681398,
    0.9998021118145528,
    0.9999999216753666,
    0.9999999999689999,
    0.7539022543433046,
    0.9903188204182529,
    0.9999961620953692,
    0.999999998480997,
    -0.0659759965580649,
    0.9772726366529437,
    -0.0499405853885688,
    0.9994802042228362,
    -0.8179834993879491,
    0.9979212988676391,
    -0.040226060930810714,
    0.5130559083605829,
};
static const double CS_DYNAMIC_SIN[] = {
    0.0,
    0.0,
    0.0,
    0.0,
    0.8414709848078965,
    0.01989314482831664,
    0.0003957894144944792,
    7.874015747950134e-06,
    0.6569865987187891,
    0.1388115050181368,
    0.0027705224294557696,
    5.5118110208312294e-05,
    -0.9978212103769744,
    -0.21198630533457433,
    0.9987521904511885,
    0.03223850751318152,
    -0.5752416837547893,
    0.06444440446093011,
    0.9991906044504175,
    0.8583551915706558,
};
static const double CS_DYNAMIC_INV[] = {
    1.0,
    0.019894457138304456,
    0.0003957894248278331,
    7.874015748031498e-06,
};

/* Rotated q/k rows and scores at positions ROT_POS for both layouts, partial rotary (dims 4..7
 * pass through unscaled) and longrope's attention factor 1.19; tolerance abs = rel = 1e-11
 * (the oracle's). Covers pe_rope_cos_sin + pe_rope_rotate with x_stride 0. */
START_TEST(test_rotation_oracle)
{
    const rot_case *c = &ROT_CASES[_i];
    size_t n = c->d / 2, np = N_ELEMS(ROT_POS), hd = c->head_dim;
    double cs[5 * 4], sn[5 * 4], qr[5 * 8], kr[5 * 8];
    ck_assert_uint_le(n, 4);
    ck_assert_uint_le(hd, 8);
    pe_rope_cos_sin(c->inv, n, ROT_POS, np, cs, sn);
    pe_rope_rotate(c->q, 0, cs, sn, np, hd, c->d, c->layout, c->att, qr);
    pe_rope_rotate(c->k, 0, cs, sn, np, hd, c->d, c->layout, c->att, kr);
    for (size_t i = 0; i < np * hd; i++) {
        ck_assert_msg(close_to(qr[i], c->qr[i], 1e-11, 1e-11), "%s q[%zu]: %.17g want %.17g", c->id,
                      i, qr[i], c->qr[i]);
        ck_assert_msg(close_to(kr[i], c->kr[i], 1e-11, 1e-11), "%s k[%zu]: %.17g want %.17g", c->id,
                      i, kr[i], c->kr[i]);
    }
    for (size_t a = 0; a < np; a++)
        for (size_t b = 0; b < np; b++) {
            double s = 0.0;
            for (size_t t = 0; t < hd; t++)
                s += qr[a * hd + t] * kr[b * hd + t];
            ck_assert_msg(close_to(s, c->scores[a * np + b], 1e-11, 1e-11),
                          "%s score[%zu][%zu]: %.17g want %.17g", c->id, a, b, s,
                          c->scores[a * np + b]);
        }
}
END_TEST

/*
 * The teaching text's worked example (docs/conventions.md#rope; oracle rope-worked-q12-k31):
 * head_dim 2, theta 0.5 (head_dim 2 with linear factor 2: 10000^0 / 2), q = (1, 2), k = (3, 1).
 * <R(m)q, R(n)k> = <q, R(n-m)k>; with phi = 0.5 (n - m), R(phi)k = (3 cos phi - sin phi,
 * 3 sin phi + cos phi), so the score is 1(3c - s) + 2(3s + c) = 5 cos phi + 5 sin phi
 * = 5 cos d - 5 sin d with d = 0.5 (m - n) = -phi.
 * (m, n) = (2,0), (5,3), (9,7): d = 1 -> 5 (cos 1 - sin 1) = -1.5058433946987837;
 * (3, 5): d = -1 -> 5 (cos 1 + sin 1) = 6.908866453380181. Unit vectors q = k = (1, 0) give
 * cos d: (2,0) -> cos 1, (4,0) -> cos 2, (10,4) -> cos 3. Tolerance abs 1e-12.
 */
START_TEST(test_worked_example)
{
    pe_rope_params p = scaled_params(2, PE_ROPE_LINEAR, 2.0, 0.0);
    double inv[1], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    ck_assert(inv[0] == 0.5 && att == 1.0);

    static const int64_t pos[] = {0, 2, 3, 4, 5, 7, 9, 10}; /* index = position slot */
    double cs[8], sn[8], qr[16], kr[16], ur[16];
    static const double q[] = {1.0, 2.0}, k[] = {3.0, 1.0}, u[] = {1.0, 0.0};
    pe_rope_cos_sin(inv, 1, pos, 8, cs, sn);
    pe_rope_rotate(q, 0, cs, sn, 8, 2, 2, PE_ROPE_HALF, att, qr);
    pe_rope_rotate(k, 0, cs, sn, 8, 2, 2, PE_ROPE_HALF, att, kr);
    pe_rope_rotate(u, 0, cs, sn, 8, 2, 2, PE_ROPE_HALF, att, ur);
#define SLOT_OF(p_)                                                                                \
    ((p_) == 0   ? 0                                                                               \
     : (p_) == 2 ? 1                                                                               \
     : (p_) == 3 ? 2                                                                               \
     : (p_) == 4 ? 3                                                                               \
     : (p_) == 5 ? 4                                                                               \
     : (p_) == 7 ? 5                                                                               \
     : (p_) == 9 ? 6                                                                               \
                 : 7)
#define DOT(a_, b_, m_, n_)                                                                        \
    ((a_)[2 * SLOT_OF(m_)] * (b_)[2 * SLOT_OF(n_)] +                                               \
     (a_)[2 * SLOT_OF(m_) + 1] * (b_)[2 * SLOT_OF(n_) + 1])
    ck_close(DOT(qr, kr, 2, 0), -1.5058433946987837, 1e-12, 0.0);
    ck_close(DOT(qr, kr, 5, 3), -1.5058433946987837, 1e-12, 0.0);
    ck_close(DOT(qr, kr, 9, 7), -1.5058433946987837, 1e-12, 0.0);
    ck_close(DOT(qr, kr, 3, 5), 6.908866453380181, 1e-12, 0.0);
    ck_close(DOT(qr, kr, 0, 0), 5.0, 1e-12, 0.0); /* <q, k> = 3 + 2 */
    ck_close(DOT(ur, ur, 2, 0), cos(1.0), 1e-12, 0.0);
    ck_close(DOT(ur, ur, 4, 0), cos(2.0), 1e-12, 0.0);
    ck_close(DOT(ur, ur, 10, 4), cos(3.0), 1e-12, 0.0);
#undef DOT
#undef SLOT_OF
    /* Counter-clockwise: position 2 turns q by +1 rad: (cos 1 - 2 sin 1, sin 1 + 2 cos 1). */
    ck_close(qr[2], cos(1.0) - 2.0 * sin(1.0), 1e-15, 0.0);
    ck_close(qr[3], sin(1.0) + 2.0 * cos(1.0), 1e-15, 0.0);
}
END_TEST

/*
 * Partial rotary and attention factor, hand-derived: head_dim 6, rotary 4, theta (0.5, 0.25),
 * position 3 (angles 1.5, 0.75), A = 2, x = (1, 2, 3, 4, 5, 6). Dims 4, 5 pass through unscaled
 * (exactly 5, 6). half pairs (0,2), (1,3): out0 = 2(1 cos1.5 - 3 sin1.5), out2 = 2(3 cos1.5 +
 * 1 sin1.5), out1 = 2(2 cos.75 - 4 sin.75), out3 = 2(4 cos.75 + 2 sin.75). interleaved pairs
 * (0,1), (2,3): out0 = 2(1 cos1.5 - 2 sin1.5), out1 = 2(2 cos1.5 + 1 sin1.5), out2 =
 * 2(3 cos.75 - 4 sin.75), out3 = 2(4 cos.75 + 3 sin.75). Tolerance abs 1e-14.
 */
START_TEST(test_rotate_partial_hand)
{
    static const double inv[] = {0.5, 0.25};
    static const double x[] = {1, 2, 3, 4, 5, 6};
    const int64_t pos = 3;
    double cs[2], sn[2], out[6];
    pe_rope_cos_sin(inv, 2, &pos, 1, cs, sn);
    double c0 = cos(1.5), s0 = sin(1.5), c1 = cos(0.75), s1 = sin(0.75);

    pe_rope_rotate(x, 6, cs, sn, 1, 6, 4, PE_ROPE_HALF, 2.0, out);
    ck_close(out[0], 2.0 * (1 * c0 - 3 * s0), 1e-14, 0.0);
    ck_close(out[2], 2.0 * (3 * c0 + 1 * s0), 1e-14, 0.0);
    ck_close(out[1], 2.0 * (2 * c1 - 4 * s1), 1e-14, 0.0);
    ck_close(out[3], 2.0 * (4 * c1 + 2 * s1), 1e-14, 0.0);
    ck_assert(out[4] == 5.0 && out[5] == 6.0);

    pe_rope_rotate(x, 6, cs, sn, 1, 6, 4, PE_ROPE_INTERLEAVED, 2.0, out);
    ck_close(out[0], 2.0 * (1 * c0 - 2 * s0), 1e-14, 0.0);
    ck_close(out[1], 2.0 * (2 * c0 + 1 * s0), 1e-14, 0.0);
    ck_close(out[2], 2.0 * (3 * c1 - 4 * s1), 1e-14, 0.0);
    ck_close(out[3], 2.0 * (4 * c1 + 3 * s1), 1e-14, 0.0);
    ck_assert(out[4] == 5.0 && out[5] == 6.0);
}
END_TEST

/*
 * Layout equivalence (docs/conventions.md#rope-layouts): half applied to x equals interleaved
 * applied to the permuted x' (x'[2j] = x[j], x'[2j+1] = x[j + n]), permuted the same way -- bit for
 * bit, since each pair sees the same arithmetic (tolerance 0). Also: x_stride 0 equals the same
 * vector repeated with x_stride = head_dim (tolerance 0). head_dim 10 (odd n = 5, exercising
 * the kernels' remainder loop), 3 positions.
 */
START_TEST(test_rotate_layouts_and_stride)
{
    pe_rope_params p = plain_params(10);
    double inv[5], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    static const int64_t pos[] = {1, 77, 4099};
    double cs[15], sn[15];
    pe_rope_cos_sin(inv, 5, pos, 3, cs, sn);
    double x[10], xp[10], rep[30];
    for (size_t i = 0; i < 10; i++)
        x[i] = 0.37 * (double)i - 1.1;
    for (size_t j = 0; j < 5; j++) {
        xp[2 * j] = x[j];
        xp[2 * j + 1] = x[j + 5];
    }
    for (size_t r = 0; r < 3; r++)
        memcpy(rep + 10 * r, x, sizeof x);
    double oh[30], oi[30], os[30];
    pe_rope_rotate(x, 0, cs, sn, 3, 10, 10, PE_ROPE_HALF, 1.5, oh);
    pe_rope_rotate(xp, 0, cs, sn, 3, 10, 10, PE_ROPE_INTERLEAVED, 1.5, oi);
    pe_rope_rotate(rep, 10, cs, sn, 3, 10, 10, PE_ROPE_HALF, 1.5, os);
    for (size_t r = 0; r < 3; r++)
        for (size_t j = 0; j < 5; j++) {
            ck_assert(oh[10 * r + j] == oi[10 * r + 2 * j]);
            ck_assert(oh[10 * r + j + 5] == oi[10 * r + 2 * j + 1]);
        }
    for (size_t i = 0; i < 30; i++)
        ck_assert(oh[i] == os[i]);
    ck_assert(oh[0] != oh[10]); /* rows really differ by position */
}
END_TEST

/* cos/sin tables against oracle rope-table-default-hd8-half and, end to end from the params,
 * rope-table-dynamic-hd8-seq131072 (positions up to 131071: tolerance abs = rel = 1e-9, the
 * oracle's). pe_rope_cos_sin_range must equal pe_rope_cos_sin on the same positions
 * (tolerance 0). */
START_TEST(test_cos_sin_oracle)
{
    static const int64_t pos[] = {0, 1, 7, 4095, 131071};
    static const double plain[] = {1.0, 0.1, 0.01, 0.001};
    double cs[20], sn[20];
    pe_rope_cos_sin(plain, 4, pos, 5, cs, sn);
    for (size_t i = 0; i < 20; i++) {
        ck_close(cs[i], CS_DEFAULT_COS[i], 1e-9, 1e-9);
        ck_close(sn[i], CS_DEFAULT_SIN[i], 1e-9, 1e-9);
    }

    pe_rope_params p = scaled_params(8, PE_ROPE_DYNAMIC, 2.0, 2048.0);
    p.seq_len = 131072;
    double inv[4], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    for (size_t j = 0; j < 4; j++)
        ck_close(inv[j], CS_DYNAMIC_INV[j], 1e-15, 1e-12);
    pe_rope_cos_sin(inv, 4, pos, 5, cs, sn);
    for (size_t i = 0; i < 20; i++) {
        ck_close(cs[i], CS_DYNAMIC_COS[i], 1e-9, 1e-9);
        ck_close(sn[i], CS_DYNAMIC_SIN[i], 1e-9, 1e-9);
    }

    static const int64_t run[] = {100, 101, 102, 103, 104, 105};
    double c1[24], s1[24], c2[24], s2[24];
    pe_rope_cos_sin(inv, 4, run, 6, c1, s1);
    pe_rope_cos_sin_range(inv, 4, 100, 6, c2, s2);
    ck_assert(memcmp(c1, c2, sizeof c1) == 0 && memcmp(s1, s2, sizeof s1) == 0);
}
END_TEST

/* ---- small formulas ------------------------------------------------------------------------ */

/*
 * softmax_scale_factor: rope-config-deepseek-v3 (yarn, factor 40, mscale_all_dim 1) expects
 * (0.1 * 1.0 * ln 40 + 1)^2 = 1.8738542070926265 (rel 1e-12); 1 without mscale_all_dim, for
 * factor <= 1 (g = 1) and for every other type.
 * ntk, hand-derived: d = 4, alpha = 4 -> exponent d/(d-2) = 2, base' = 10000 * 16 = 160000,
 * theta = (1, 1/sqrt(160000) = 0.0025).
 */
START_TEST(test_softmax_scale_and_ntk)
{
    pe_rope_params p = scaled_params(64, PE_ROPE_YARN, 40.0, 4096.0);
    p.has_mscale = p.has_mscale_all_dim = 1;
    p.mscale = p.mscale_all_dim = 1.0;
    ck_close(pe_rope_softmax_scale_factor(&p), 1.8738542070926265, 0.0, 1e-12);
    double inv[32], att;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    ck_close(att, 1.0, 1e-15, 1e-12); /* g(40,1)/g(40,1) */
    p.has_mscale_all_dim = 0;
    p.mscale_all_dim = 0.0;
    ck_assert(pe_rope_softmax_scale_factor(&p) == 1.0);
    p.has_mscale_all_dim = 1;
    p.mscale_all_dim = 1.0;
    p.factor = 0.5;
    ck_assert(pe_rope_softmax_scale_factor(&p) == 1.0);
    p.type = PE_ROPE_LINEAR;
    p.factor = 40.0;
    ck_assert(pe_rope_softmax_scale_factor(&p) == 1.0);

    p = plain_params(4);
    p.type = PE_ROPE_NTK;
    p.alpha = 4.0;
    pe_rope_info info;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, &info), PE_OK);
    ck_close(info.effective_base, 160000.0, 0.0, 1e-15);
    ck_close(inv[0], 1.0, 1e-15, 1e-12);
    ck_close(inv[1], 0.0025, 1e-15, 1e-12);
    ck_assert(att == 1.0);
}
END_TEST

/* Explicit inv_freq (docs/api.md: `{"head_dim": 2, "inv_freq": [0.5]}`) is copied as is with A = 1;
 * it requires type default. */
START_TEST(test_explicit_inv_freq)
{
    static const double given[] = {0.5, 0.125};
    pe_rope_params p = plain_params(4);
    p.base = 0.0; /* ignored with explicit frequencies */
    p.inv_freq = given;
    double inv[2], att = 0.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_OK);
    ck_assert(inv[0] == 0.5 && inv[1] == 0.125 && att == 1.0);
    p.type = PE_ROPE_LINEAR;
    p.factor = 2.0;
    ck_assert_int_eq(pe_rope_inv_freq(&p, inv, &att, NULL), PE_ERR_ARG);
}
END_TEST

/* Domain checks (rope.h, pe_rope_params_check): each row is a configuration of its type that breaks
 * exactly one rule (other fields valid or unused) and must give the listed status. */
START_TEST(test_params_errors)
{
    static const double zero_list[] = {0.0, 1.0};
    const double B = 10000.0;
    const struct {
        const char *what;
        pe_status want;
        pe_rope_params p;
    } rows[] = {
        {"odd rotary_dim", PE_ERR_ARG, {.rotary_dim = 5, .base = B}},
        {"rotary_dim 0", PE_ERR_ARG, {.rotary_dim = 0, .base = B}},
        {"base 1", PE_ERR_ARG, {.rotary_dim = 4, .base = 1.0}},
        {"base NaN", PE_ERR_ARG, {.rotary_dim = 4, .base = NAN}},
        {"linear factor 0", PE_ERR_ARG, {.rotary_dim = 4, .base = B, .type = PE_ROPE_LINEAR}},
        {"dynamic d 2",
         PE_ERR_ARG,
         {.rotary_dim = 2,
          .base = B,
          .type = PE_ROPE_DYNAMIC,
          .factor = 2.0,
          .original_max_position_embeddings = 100.0}},
        {"dynamic L0 0",
         PE_ERR_ARG,
         {.rotary_dim = 4, .base = B, .type = PE_ROPE_DYNAMIC, .factor = 2.0}},
        {"yarn beta_fast -1",
         PE_ERR_ARG,
         {.rotary_dim = 4,
          .base = B,
          .type = PE_ROPE_YARN,
          .factor = 2.0,
          .original_max_position_embeddings = 100.0,
          .beta_fast = -1.0}},
        {"llama3 low > high",
         PE_ERR_ARG,
         {.rotary_dim = 4,
          .base = B,
          .type = PE_ROPE_LLAMA3,
          .factor = 8.0,
          .original_max_position_embeddings = 8192.0,
          .low_freq_factor = 3.0,
          .high_freq_factor = 2.0}},
        {"ntk alpha 0", PE_ERR_ARG, {.rotary_dim = 4, .base = B, .type = PE_ROPE_NTK}},
        {"longrope list entry 0",
         PE_ERR_NONFINITE,
         {.rotary_dim = 4,
          .base = B,
          .type = PE_ROPE_LONGROPE,
          .factor = 2.0,
          .original_max_position_embeddings = 100.0,
          .short_factor = zero_list,
          .long_factor = zero_list}},
        {"unknown type", PE_ERR_ARG, {.rotary_dim = 4, .base = B, .type = (pe_rope_type)42}},
    };
    double inv[2], att;
    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        ck_assert_msg(pe_rope_inv_freq(&rows[i].p, inv, &att, NULL) == rows[i].want, "%s",
                      rows[i].what);
        ck_assert_int_eq(pe_rope_params_check(&rows[i].p),
                         rows[i].want == PE_ERR_NONFINITE ? PE_OK : PE_ERR_ARG);
    }
}
END_TEST

Suite *rope_suite(void)
{
    Suite *s = suite_create("rope");
    TCase *tc = tcase_create("inv_freq");
    tcase_add_loop_test(tc, test_inv_freq_oracle, 0, (int)N_ELEMS(INV_CASES));
    tcase_add_test(tc, test_yarn_bounds);
    tcase_add_test(tc, test_dynamic_short_is_plain);
    tcase_add_test(tc, test_longrope_switch);
    tcase_add_test(tc, test_softmax_scale_and_ntk);
    tcase_add_test(tc, test_explicit_inv_freq);
    tcase_add_test(tc, test_params_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("rotation");
    tcase_add_loop_test(tc, test_rotation_oracle, 0, (int)N_ELEMS(ROT_CASES));
    tcase_add_test(tc, test_worked_example);
    tcase_add_test(tc, test_rotate_partial_hand);
    tcase_add_test(tc, test_rotate_layouts_and_stride);
    tcase_add_test(tc, test_cos_sin_oracle);
    suite_add_tcase(s, tc);

    tc = tcase_create("explain");
    tcase_add_test(tc, test_llama3_bands);
    tcase_add_test(tc, test_llama3_band_counts_other);
    tcase_add_test(tc, test_yarn_bands);
    tcase_add_test(tc, test_bands_other_types);
    tcase_add_test(tc, test_decay_hand);
    tcase_add_test(tc, test_decay_shape);
    tcase_add_test(tc, test_float32_error);
    suite_add_tcase(s, tc);
    return s;
}
