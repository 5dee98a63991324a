"""Bessel functions, Airy's Ai and the orthogonal polynomials of one number (lessons 04-05).

The scalar bodies of ``torch.special``'s Bessel and polynomial functions, with
the rules of ``scalar_math``: plain Python that numba compiles for the CPU and
for the GPU, in the input's precision (every constant ``type(x)(c)``, every
integer turned into ``type(x)`` before it meets a float), and IEEE answers where
Python's ``math`` raises (``math.cos(inf)``, ``math.exp(1000.0)``).

They follow PyTorch's own steps (Cephes' rational and Chebyshev-series
approximations, with the same split points and the same order of operations),
so that a float32 result is the float32 computation PyTorch does, not a float64
one rounded. Each function is whole: none calls another of this module, since
a GPU kernel compiles one function (``bessel_y0`` repeats ``bessel_j0``'s
rational part, ``modified_bessel_k0`` the series of ``modified_bessel_i0``).

A Chebyshev series sum c_k T_k(t/2) is Clenshaw's recurrence
``a = t q - p + c`` (Cephes' ``chbevl``): the value is ``(a - p) / 2``.

The polynomials take their degree ``n`` as a float of x's dtype and truncate it,
as PyTorch's ``static_cast<int64_t>``; a NaN, an infinity or a degree past int64
is a negative degree there (x86's cast gives INT64_MIN), whose polynomial is 0.

    >>> bessel_j0(0.0), modified_bessel_i0(0.0), chebyshev_polynomial_t(0.5, 2.0)
    (1.0, 1.0, -0.5)
"""

from __future__ import annotations

import math

import numpy as np

# Steps a * b + c written type(x)(W(a) * W(b) + W(c)): PyTorch's compiled code fuses them (one
# rounding); a float32 product is exact in float64, so this rounds once too. For float64 x
# W is the identity and the step is the plain one.
W = np.float64
# log of float64's largest number: math.exp raises beyond it, where a processor gives inf.
EXP_LIMIT = 709.782712893384
# 2**63: degrees from here (and NaN, +-inf) are no int64; PyTorch's cast makes them negative.
INT64_END = 9.223372036854775808e18
# float32 rounds 2**24 + 1 to 2**24, float64 does not: a test of x's precision that the
# compiler answers once (both sides are constants).
WIDE, WIDE_PLUS_ONE = 16777216.0, 16777217.0

# fmt: off
# -- coefficients (Cephes, as PyTorch has them) -----------------------------------------------
# J0 and Y0 for x > 5: P(25/x^2)/Q and the phase correction; J1 and Y1 likewise.
J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e00,
         5.44725003058768775090e00, 8.74716500199817011941e00, 5.30324038235394892183e00,
         9.99999999999999997821e-01)
J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e00,
         5.47097740330417105182e00, 8.76190883237069594232e00, 5.30605288235394617618e00,
         1.00000000000000000218e00)
J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e00, -1.95539544257735972385e01,
         -9.32060152123768231369e01, -1.77681167980488050595e02, -1.47077505154951170175e02,
         -5.14105326766599330220e01, -6.05014350600728481186e00)
J0_QQ = (6.43178256118178023184e01, 8.56430025976980587198e02, 3.88240183605401609683e03,
         7.24046774195652478189e03, 5.93072701187316984827e03, 2.06209331660327847417e03,
         2.42005740240291393179e02)
# J0 on [0, 5]: (x^2 - r1^2)(x^2 - r2^2) R(x^2) / S(x^2), r1 and r2 its first two zeros.
J0_RP = (-4.79443220978201773821e09, 1.95617491946556577543e12, -2.49248344360967716204e14,
         9.70862251047306323952e15)
J0_RQ = (4.99563147152651017219e02, 1.73785401676374683123e05, 4.84409658339962045305e07,
         1.11855537045356834862e10, 2.11277520115489217587e12, 3.10518229857422583814e14,
         3.18121955943204943306e16, 1.71086294081043136091e18)
J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e00,
         5.11207951146807644818e00, 8.42404590141772420927e00, 5.21451598682361504063e00,
         1.00000000000000000254e00)
J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e00,
         5.07386386128601488557e00, 8.39985554327604159757e00, 5.20982848682361821619e00,
         9.99999999999999997461e-01)
J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e00, 7.58238284132545283818e01,
         3.66779609360150777800e02, 7.10856304998926107277e02, 5.97489612400613639965e02,
         2.11688757100572135698e02, 2.52070205858023719784e01)
J1_QQ = (7.42373277035675149943e01, 1.05644886038262816351e03, 4.98641058337653607651e03,
         9.56231892404756170795e03, 7.99704160447350683650e03, 2.82619278517639096600e03,
         3.36093607810698293419e02)
J1_RP = (-8.99971225705559398224e08, 4.52228297998194034323e11, -7.27494245221818276015e13,
         3.68295732863852883286e15)
J1_RQ = (6.20836478118054335476e02, 2.56987256757748830383e05, 8.35146791431949253037e07,
         2.21511595479792499675e10, 4.74914122079991414898e12, 7.84369607876235854894e14,
         8.95222336184627338078e16, 5.32278620332680085395e18)
# Y0 - (2/pi) log(x) J0 on (0, 5], and Y1's x (Y1 - (2/pi)(J1 log x - 1/x)).
Y0_YP = (1.55924367855235737965e04, -1.46639295903971606143e07, 5.43526477051876500413e09,
         -9.82136065717911466409e11, 8.75906394395366999549e13, -3.46628303384729719441e15,
         4.42733268572569800351e16, -1.84950800436986690637e16)
Y0_YQ = (1.04128353664259848412e03, 6.26107330137134956842e05, 2.68919633393814121987e08,
         8.64002487103935000337e10, 2.02979612750105546709e13, 3.17157752842975028269e15,
         2.50596256172653059228e17)
Y1_YP = (1.26320474790178026440e09, -6.47355876379160291031e11, 1.14509511541823727583e14,
         -8.12770255501325109621e15, 2.02439475713594898196e17, -7.78877196265950026825e17)
Y1_YQ = (5.94301592346128195359e02, 2.35564092943068577943e05, 7.34811944459721705660e07,
         1.87601316108706159478e10, 3.88231277496238566008e12, 6.20557727146953693363e14,
         6.87141087355300489866e16, 3.97270608116560655612e18)
# exp(-x) I0(x) as a Chebyshev series in x/2 - 2 on [0, 8], and sqrt(x) exp(-x) I0(x) in
# 32/x - 2 beyond; I1 likewise (I1's first series is of exp(-x) I1(x) / x).
I0_A = (-4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
        1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
        -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
        9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-09,
        -1.30002500998624804212e-08, 6.04699502254191894932e-08, -2.67079385394061173391e-07,
        1.11738753912010371815e-06, -4.41673835845875056359e-06, 1.64484480707288970893e-05,
        -5.75419501008210370398e-05, 1.88502885095841655729e-04, -5.76375574538582365885e-04,
        1.63947561694133579842e-03, -4.32430999505057594430e-03, 1.05464603945949983183e-02,
        -2.37374148058994688156e-02, 4.93052842396707084878e-02, -9.49010970480476444210e-02,
        1.71620901522208775349e-01, -3.04682672343198398683e-01, 6.76795274409476084995e-01)
I0_B = (-7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
        3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
        1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
        -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
        7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
        -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
        3.39623202570838634515e-09, 2.26666899049817806459e-08, 2.04891858946906374183e-07,
        2.89137052083475648297e-06, 6.88975834691682398426e-05, 3.36911647825569408990e-03,
        8.04490411014108831608e-01)
I1_A = (2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
        -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
        3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
        -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
        9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07,
        -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05,
        4.78156510755005422638e-05, -1.61760815825896745588e-04, 5.12285956168575772895e-04,
        -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
        2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01,
        -1.76416518357834055153e-01, 2.52587186443633654823e-01)
I1_B = (7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
        -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
        -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
        4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
        -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
        3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
        -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
        -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
        7.78576235018280120474e-01)
# K0 + log(x/2) I0 on (0, 2] in x^2 - 2, and sqrt(x) exp(x) K0 beyond in 8/x - 2; K1 likewise
# (its first series is of x (K1 - log(x/2) I1)).
K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
        1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
        1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
        -5.35327393233902768720e-01)
K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
        -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
        6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
        -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
        1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
        -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
        2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
        -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
        2.44030308206595545468e00)
K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
        -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
        -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
        -3.53155960776544875667e-01, 1.52530022733894777053e00)
K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
        1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
        -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
        3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
        -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
        2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
        -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
        1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
        2.72062619048444266945e00)
# Ai: its asymptotic forms for x >= 2.09 (AN/AD in 1/zeta) and x < -2.09 (in z^2).
AI_AN = (3.46538101525629032477e-01, 1.20075952739645805542e01, 7.62796053615234516538e01,
         1.68089224934630576269e02, 1.59756391350164413639e02, 7.05360906840444183113e01,
         1.40264691163389668864e01, 9.99999999999999995305e-01)
AI_AD = (5.67594532638770212846e-01, 1.47562562584847203173e01, 8.45138970141474626562e01,
         1.77318088145400459522e02, 1.64234692871529701831e02, 7.14778400825575695274e01,
         1.40959135607834029598e01, 1.00000000000000000470e00)
AI_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
          -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
          -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
AI_AFD = (1.33560420706553243746e01, 3.26825032795224613948e01, 2.67367040941499554804e01,
          9.18707402907259625840e00, 1.47529146771666414581e00, 1.15687173795188044134e-01,
          4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
AI_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e00,
          9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
          5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
          8.11789239554389293311e-08, 3.41551784765923618484e-10)
AI_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
          5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
          4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
          4.91834570062930015649e-09)  # fmt: skip
# fmt: on

# Constants of the asymptotic forms: pi/4, 3 pi/4, sqrt(2/pi), 2/pi, 1/sqrt(pi).
QUARTER_PI = 0.785398163397448309615660845819875721
THREE_QUARTER_PI = 2.356194490192344928846982537459627163
SQRT_TWO_OVER_PI = 0.797884560802865355879892119868763737
TWO_OVER_PI = 0.636619772367581343075535053490057448
ONE_OVER_SQRT_PI = 5.64189583547756286948e-01
J0_ZERO1_SQUARED, J0_ZERO2_SQUARED = 5.78318596294678452118e00, 3.04712623436620863991e01
J1_ZERO1_SQUARED, J1_ZERO2_SQUARED = 1.46819706421238932572e01, 4.92184563216946036703e01


# -- Bessel functions of the first and second kind ---------------------------------------------
def bessel_j0(x):
    """J0(x): even; 1 - x^2/4 below 1e-5, a rational function up to 5, the asymptotic form
    beyond (NaN at +-inf, where cos and sin have no value).

    >>> bessel_j0(0.0), round(bessel_j0(1.0), 12), bessel_j0(math.inf), bessel_j0(math.nan)
    (1.0, 0.765197686558, nan, nan)
    """
    if x < 0:
        x = -x
    if x == type(x)(math.inf):
        return type(x)(math.nan)
    xx = x * x
    if x <= type(x)(5):
        if x < type(x)(0.00001):
            return type(x)(1) - xx / type(x)(4)
        rp = type(x)(0)
        for c in J0_RP:
            rp = type(x)(W(rp) * W(xx) + W(type(x)(c)))
        rq = type(x)(0)
        for c in J0_RQ:
            rq = type(x)(W(rq) * W(xx) + W(type(x)(c)))
        return (xx - type(x)(J0_ZERO1_SQUARED)) * (xx - type(x)(J0_ZERO2_SQUARED)) * rp / rq
    w = type(x)(25) / xx
    pp = type(x)(0)
    for c in J0_PP:
        pp = type(x)(W(pp) * W(w) + W(type(x)(c)))
    pq = type(x)(0)
    for c in J0_PQ:
        pq = type(x)(W(pq) * W(w) + W(type(x)(c)))
    qp = type(x)(0)
    for c in J0_QP:
        qp = type(x)(W(qp) * W(w) + W(type(x)(c)))
    qq = type(x)(0)
    for c in J0_QQ:
        qq = type(x)(W(qq) * W(w) + W(type(x)(c)))
    phase = x - type(x)(QUARTER_PI)
    cos, sin = type(x)(math.cos(phase)), type(x)(math.sin(phase))
    wave = type(x)(W(pp / pq) * W(cos) - W(type(x)(5) / x * (qp / qq) * sin))
    return wave * type(x)(SQRT_TWO_OVER_PI) / type(x)(math.sqrt(x))


def bessel_j1(x):
    """J1(x): odd; a rational function up to 5, the asymptotic form beyond (NaN at +-inf).

    >>> bessel_j1(0.0), round(bessel_j1(1.0), 12), round(bessel_j1(-1.0), 12), bessel_j1(math.inf)
    (0.0, 0.440050585745, -0.440050585745, nan)
    """
    sign = type(x)(1)
    if x < 0:
        x = -x
        sign = type(x)(-1)
    if x == type(x)(math.inf):
        return type(x)(math.nan)
    xx = x * x
    if x <= type(x)(5):
        rp = type(x)(0)
        for c in J1_RP:
            rp = type(x)(W(rp) * W(xx) + W(type(x)(c)))
        rq = type(x)(0)
        for c in J1_RQ:
            rq = type(x)(W(rq) * W(xx) + W(type(x)(c)))
        small = rp / rq * x * (xx - type(x)(J1_ZERO1_SQUARED)) * (xx - type(x)(J1_ZERO2_SQUARED))
        return sign * small
    w = type(x)(5) / x * (type(x)(5) / x)
    pp = type(x)(0)
    for c in J1_PP:
        pp = type(x)(W(pp) * W(w) + W(type(x)(c)))
    pq = type(x)(0)
    for c in J1_PQ:
        pq = type(x)(W(pq) * W(w) + W(type(x)(c)))
    qp = type(x)(0)
    for c in J1_QP:
        qp = type(x)(W(qp) * W(w) + W(type(x)(c)))
    qq = type(x)(0)
    for c in J1_QQ:
        qq = type(x)(W(qq) * W(w) + W(type(x)(c)))
    phase = x - type(x)(THREE_QUARTER_PI)
    cos, sin = type(x)(math.cos(phase)), type(x)(math.sin(phase))
    root = type(x)(math.sqrt(x))
    wave = type(x)(W(pp / pq) * W(cos) - W(type(x)(5) / x * (qp / qq) * sin))
    return sign * (wave * type(x)(SQRT_TWO_OVER_PI) / root)


def bessel_y0(x):
    """Y0(x): -inf at 0, NaN below; (2/pi) log(x) J0(x) plus a rational function up to 5,
    the asymptotic form beyond (NaN at inf).

    >>> bessel_y0(0.0), round(bessel_y0(1.0), 12), bessel_y0(-1.0), bessel_y0(math.inf)
    (-inf, 0.088256964216, nan, nan)
    """
    if x == type(x)(math.inf):
        return type(x)(math.nan)
    xx = x * x
    if x <= type(x)(5):
        if x == 0:
            return type(x)(-math.inf)
        if x < 0:
            return type(x)(math.nan)
        yp = type(x)(0)
        for c in Y0_YP:
            yp = type(x)(W(yp) * W(xx) + W(type(x)(c)))
        yq = type(x)(0)
        for c in Y0_YQ:
            yq = type(x)(W(yq) * W(xx) + W(type(x)(c)))
        if x < type(x)(0.00001):  # J0(x), as bessel_j0 computes it
            j0 = type(x)(1) - xx / type(x)(4)
        else:
            rp = type(x)(0)
            for c in J0_RP:
                rp = type(x)(W(rp) * W(xx) + W(type(x)(c)))
            rq = type(x)(0)
            for c in J0_RQ:
                rq = type(x)(W(rq) * W(xx) + W(type(x)(c)))
            j0 = (xx - type(x)(J0_ZERO1_SQUARED)) * (xx - type(x)(J0_ZERO2_SQUARED)) * rp / rq
        return type(x)(W(type(x)(TWO_OVER_PI) * type(x)(math.log(x))) * W(j0) + W(yp / yq))
    w = type(x)(25) / xx
    pp = type(x)(0)
    for c in J0_PP:
        pp = type(x)(W(pp) * W(w) + W(type(x)(c)))
    pq = type(x)(0)
    for c in J0_PQ:
        pq = type(x)(W(pq) * W(w) + W(type(x)(c)))
    qp = type(x)(0)
    for c in J0_QP:
        qp = type(x)(W(qp) * W(w) + W(type(x)(c)))
    qq = type(x)(0)
    for c in J0_QQ:
        qq = type(x)(W(qq) * W(w) + W(type(x)(c)))
    phase = x - type(x)(QUARTER_PI)
    cos, sin = type(x)(math.cos(phase)), type(x)(math.sin(phase))
    root = type(x)(math.sqrt(x))
    wave = type(x)(W(pp / pq) * W(sin) + W(type(x)(5) / x * (qp / qq) * cos))
    return wave * type(x)(SQRT_TWO_OVER_PI) / root


def bessel_y1(x):
    """Y1(x): -inf at 0, NaN below; (2/pi)(J1(x) log(x) - 1/x) plus x times a rational
    function up to 5, the asymptotic form beyond (NaN at inf).

    >>> bessel_y1(0.0), round(bessel_y1(1.0), 12), bessel_y1(-1.0), bessel_y1(math.inf)
    (-inf, -0.781212821300, nan, nan)
    """
    if x == type(x)(math.inf):
        return type(x)(math.nan)
    xx = x * x
    if x <= type(x)(5):
        if x == 0:
            return type(x)(-math.inf)
        if x <= 0:
            return type(x)(math.nan)
        yp = type(x)(0)
        for c in Y1_YP:
            yp = type(x)(W(yp) * W(xx) + W(type(x)(c)))
        yq = type(x)(0)
        for c in Y1_YQ:
            yq = type(x)(W(yq) * W(xx) + W(type(x)(c)))
        rp = type(x)(0)  # J1(x), as bessel_j1 computes it
        for c in J1_RP:
            rp = type(x)(W(rp) * W(xx) + W(type(x)(c)))
        rq = type(x)(0)
        for c in J1_RQ:
            rq = type(x)(W(rq) * W(xx) + W(type(x)(c)))
        j1 = rp / rq * x * (xx - type(x)(J1_ZERO1_SQUARED)) * (xx - type(x)(J1_ZERO2_SQUARED))
        log = type(x)(math.log(x))
        inner = type(x)(W(j1) * W(log) - W(type(x)(1) / x))
        return type(x)(W(x) * W(yp / yq) + W(type(x)(TWO_OVER_PI) * inner))
    w = type(x)(5) / x * (type(x)(5) / x)
    pp = type(x)(0)
    for c in J1_PP:
        pp = type(x)(W(pp) * W(w) + W(type(x)(c)))
    pq = type(x)(0)
    for c in J1_PQ:
        pq = type(x)(W(pq) * W(w) + W(type(x)(c)))
    qp = type(x)(0)
    for c in J1_QP:
        qp = type(x)(W(qp) * W(w) + W(type(x)(c)))
    qq = type(x)(0)
    for c in J1_QQ:
        qq = type(x)(W(qq) * W(w) + W(type(x)(c)))
    phase = x - type(x)(THREE_QUARTER_PI)
    cos, sin = type(x)(math.cos(phase)), type(x)(math.sin(phase))
    root = type(x)(math.sqrt(x))
    wave = type(x)(W(pp / pq) * W(sin) + W(type(x)(5) / x * (qp / qq) * cos))
    return wave * type(x)(SQRT_TWO_OVER_PI) / root


# -- modified Bessel functions -----------------------------------------------------------------
def modified_bessel_i0(x):
    """I0(x): even, exp(abs(x)) times a Chebyshev series in abs(x)/2 - 2 up to 8,
    exp(abs(x))/sqrt(abs(x)) times one in 32/abs(x) - 2 beyond; inf where exp overflows, NaN
    at +-inf (inf / inf).

    >>> modified_bessel_i0(0.0), round(modified_bessel_i0(-1.0), 12), modified_bessel_i0(800.0)
    (1.0, 1.266065877752, inf)
    """
    a = abs(x)
    big = a > type(x)(EXP_LIMIT) and a == a
    grow = type(x)(math.inf) if big else type(x)(math.exp(a))
    p = type(x)(0)
    q = type(x)(0)
    if a <= type(x)(8):
        t = a / type(x)(2) - type(x)(2)
        s = type(x)(I0_A[0])
        for c in I0_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        return grow * (type(x)(0.5) * (s - p))
    t = type(x)(32) / a - type(x)(2)
    s = type(x)(I0_B[0])
    for c in I0_B[1:]:
        p = q
        q = s
        s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
    return grow * (type(x)(0.5) * (s - p)) / type(x)(math.sqrt(a))


def modified_bessel_i1(x):
    """I1(x): odd, abs(x) exp(abs(x)) times a Chebyshev series up to 8,
    exp(abs(x))/sqrt(abs(x)) times another beyond (I0's split); +-inf where exp overflows,
    NaN at +-inf.

    >>> modified_bessel_i1(0.0), round(modified_bessel_i1(-1.0), 12), modified_bessel_i1(800.0)
    (0.0, -0.565159103992, inf)
    """
    a = abs(x)
    big = a > type(x)(EXP_LIMIT) and a == a
    grow = type(x)(math.inf) if big else type(x)(math.exp(a))
    p = type(x)(0)
    q = type(x)(0)
    if a <= type(x)(8):
        t = a / type(x)(2) - type(x)(2)
        s = type(x)(I1_A[0])
        for c in I1_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        out = type(x)(0.5) * (s - p) * a * grow
        return -out if x < 0 else out
    t = type(x)(32) / a - type(x)(2)
    s = type(x)(I1_B[0])
    for c in I1_B[1:]:
        p = q
        q = s
        s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
    out = grow * (type(x)(0.5) * (s - p)) / type(x)(math.sqrt(a))
    return -out if x < 0 else out


def modified_bessel_k0(x):
    """K0(x): inf at 0, NaN below; a Chebyshev series in x^2 - 2 minus log(x/2) I0(x) up to 2,
    exp(-x)/sqrt(x) times one in 8/x - 2 beyond (0 at inf).

    >>> modified_bessel_k0(0.0), round(modified_bessel_k0(1.0), 12), modified_bessel_k0(-1.0)
    (inf, 0.421024438241, nan)
    """
    if x == 0:
        return type(x)(math.inf)
    if x < 0:
        return type(x)(math.nan)
    p = type(x)(0)
    q = type(x)(0)
    if x <= type(x)(2):
        t = type(x)(W(x) * W(x) - W(type(x)(2)))
        s = type(x)(K0_A[0])
        for c in K0_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        k = type(x)(0.5) * (s - p)
        p = type(x)(0)  # I0(x), as modified_bessel_i0 computes it for x <= 8
        q = type(x)(0)
        t = x / type(x)(2) - type(x)(2)
        s = type(x)(I0_A[0])
        for c in I0_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        i0 = type(x)(math.exp(x)) * (type(x)(0.5) * (s - p))
        return type(x)(W(k) - W(math.log(W(x) * 0.5)) * W(i0))  # log(x/2) in float64 (PyTorch's)
    t = type(x)(8) / x - type(x)(2)
    s = type(x)(K0_B[0])
    for c in K0_B[1:]:
        p = q
        q = s
        s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
    return type(x)(math.exp(-x)) * (type(x)(0.5) * (s - p)) / type(x)(math.sqrt(x))


def modified_bessel_k1(x):
    """K1(x): inf at 0, NaN below; log(x/2) I1(x) plus a Chebyshev series over x up to 2,
    exp(-x)/sqrt(x) times one in 8/x - 2 beyond (0 at inf).

    >>> modified_bessel_k1(0.0), round(modified_bessel_k1(1.0), 12), modified_bessel_k1(-1.0)
    (inf, 0.601907230197, nan)
    """
    if x == 0:
        return type(x)(math.inf)
    if x < 0:
        return type(x)(math.nan)
    p = type(x)(0)
    q = type(x)(0)
    if x <= type(x)(2):
        t = type(x)(W(x) * W(x) - W(type(x)(2)))
        s = type(x)(K1_A[0])
        for c in K1_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        k = type(x)(0.5) * (s - p) / x
        p = type(x)(0)  # I1(x), as modified_bessel_i1 computes it for 0 < x <= 8
        q = type(x)(0)
        t = x / type(x)(2) - type(x)(2)
        s = type(x)(I1_A[0])
        for c in I1_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        i1 = type(x)(0.5) * (s - p) * x * type(x)(math.exp(x))
        return type(x)(W(type(x)(math.log(type(x)(0.5) * x))) * W(i1) + W(k))
    t = type(x)(8) / x - type(x)(2)
    s = type(x)(K1_B[0])
    for c in K1_B[1:]:
        p = q
        q = s
        s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
    return type(x)(math.exp(-x)) * (type(x)(0.5) * (s - p)) / type(x)(math.sqrt(x))


def scaled_modified_bessel_k0(x):
    """exp(x) K0(x): K0's series times exp(x) up to 2, and its second series without the
    exp(-x) beyond (0 at inf); inf at 0, NaN below.

    >>> scaled_modified_bessel_k0(0.0), round(scaled_modified_bessel_k0(1.0), 12)
    (inf, 1.144463079806)
    """
    if x == 0:
        return type(x)(math.inf)
    if x < 0:
        return type(x)(math.nan)
    p = type(x)(0)
    q = type(x)(0)
    if x <= type(x)(2):
        t = type(x)(W(x) * W(x) - W(type(x)(2)))
        s = type(x)(K0_A[0])
        for c in K0_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        k = type(x)(0.5) * (s - p)
        p = type(x)(0)  # I0(x), as modified_bessel_i0 computes it for x <= 8
        q = type(x)(0)
        t = x / type(x)(2) - type(x)(2)
        s = type(x)(I0_A[0])
        for c in I0_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        grow = type(x)(math.exp(x))
        i0 = grow * (type(x)(0.5) * (s - p))
        return type(x)(W(k) - W(type(x)(math.log(type(x)(0.5) * x))) * W(i0)) * grow
    t = type(x)(8) / x - type(x)(2)
    s = type(x)(K0_B[0])
    for c in K0_B[1:]:
        p = q
        q = s
        s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
    return type(x)(0.5) * (s - p) / type(x)(math.sqrt(x))


def scaled_modified_bessel_k1(x):
    """exp(x) K1(x): K1's two forms, the first times exp(x), the second without exp(-x)
    (0 at inf); inf at 0, NaN below.

    >>> scaled_modified_bessel_k1(0.0), round(scaled_modified_bessel_k1(1.0), 12)
    (inf, 1.636153486263)
    """
    if x == 0:
        return type(x)(math.inf)
    if x < 0:
        return type(x)(math.nan)
    p = type(x)(0)
    q = type(x)(0)
    if x <= type(x)(2):
        t = type(x)(W(x) * W(x) - W(type(x)(2)))
        s = type(x)(K1_A[0])
        for c in K1_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        k = type(x)(0.5) * (s - p) / x
        p = type(x)(0)  # I1(x), as modified_bessel_i1 computes it for 0 < x <= 8
        q = type(x)(0)
        t = x / type(x)(2) - type(x)(2)
        s = type(x)(I1_A[0])
        for c in I1_A[1:]:
            p = q
            q = s
            s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
        grow = type(x)(math.exp(x))
        i1 = type(x)(0.5) * (s - p) * x * grow
        return type(x)(W(type(x)(math.log(type(x)(0.5) * x))) * W(i1) + W(k)) * grow
    t = type(x)(8) / x - type(x)(2)
    s = type(x)(K1_B[0])
    for c in K1_B[1:]:
        p = q
        q = s
        s = type(x)(W(t) * W(q) - W(p)) + type(x)(c)
    return type(x)(0.5) * (s - p) / type(x)(math.sqrt(x))


# -- spherical Bessel and Airy ------------------------------------------------------------------
def spherical_bessel_j0(x):
    """j0(x) = sin(x)/x: a Taylor polynomial below abs(x) = 1/2, 0 at +-inf.

    >>> f = spherical_bessel_j0
    >>> f(0.0), round(f(2.0), 12), f(-math.inf)
    (1.0, 0.454648713413, 0.0)
    """
    if x == type(x)(math.inf) or x == type(x)(-math.inf):
        return type(x)(0)
    if abs(x) < type(x)(0.5):
        xx = x * x
        one = type(x)(1)
        s = one / type(x)(6227020800.0)
        s = type(x)(W(xx) * W(s) + W(-one / type(x)(39916800.0)))
        s = type(x)(W(xx) * W(s) + W(one / type(x)(362880.0)))
        s = type(x)(W(xx) * W(s) + W(-one / type(x)(5040.0)))
        s = type(x)(W(xx) * W(s) + W(one / type(x)(120.0)))
        s = type(x)(W(xx) * W(s) + W(-one / type(x)(6.0)))
        return type(x)(W(xx) * W(s) + W(one))
    return type(x)(math.sin(x)) / x


def airy_ai(x):
    """Ai(x): its power series between -2.09 and 2.09 (to x's epsilon), asymptotic forms
    beyond (Ai's above 8.32), 0 above 103.892, NaN at +-inf.

    >>> round(airy_ai(0.0), 12), round(airy_ai(-3.0), 12), airy_ai(200.0), airy_ai(math.inf)
    (0.355028053888, -0.37881428833, 0.0, nan)
    """
    if x == type(x)(math.inf) or x == type(x)(-math.inf):
        return type(x)(math.nan)
    if x > type(x)(103.892):
        return type(x)(0)
    if x < type(x)(-2.09):
        root = type(x)(math.sqrt(-x))
        z = type(x)(1) / (type(x)(-2) * x * root / type(x)(3))
        zz = z * z
        afn = type(x)(0)
        for c in AI_AFN:
            afn = type(x)(W(afn) * W(zz) + W(type(x)(c)))
        afd = type(x)(0)
        for c in AI_AFD:
            afd = type(x)(W(afd) * W(zz) + W(type(x)(c)))
        agn = type(x)(0)
        for c in AI_AGN:
            agn = type(x)(W(agn) * W(zz) + W(type(x)(c)))
        agd = type(x)(0)
        for c in AI_AGD:
            agd = type(x)(W(agd) * W(zz) + W(type(x)(c)))
        t = type(x)(-2) * x * root / type(x)(3) + type(x)(0.25) * type(x)(math.pi)
        if t == type(x)(math.inf):  # -x^1.5 past the largest float: no phase left
            return type(x)(math.nan)
        sin, cos = type(x)(math.sin(t)), type(x)(math.cos(t))
        scale = type(x)(ONE_OVER_SQRT_PI) / type(x)(math.sqrt(root))
        wave = type(x)(W(sin) * W(type(x)(1) + z * z * afn / afd) - W(cos * (z * agn / agd)))
        return scale * wave
    if x >= type(x)(2.09):
        zeta = type(x)(2) * x * type(x)(math.sqrt(x)) / type(x)(3)
        w = type(x)(1) / zeta
        an = type(x)(0)
        for c in AI_AN:
            an = type(x)(W(an) * W(w) + W(type(x)(c)))
        ad = type(x)(0)
        for c in AI_AD:
            ad = type(x)(W(ad) * W(w) + W(type(x)(c)))
        grow = type(x)(math.exp(zeta))
        root = type(x)(math.sqrt(type(x)(math.sqrt(x))))
        # (PyTorch also sums the series below 8.3203353, then returns this all the same.)
        return type(x)(ONE_OVER_SQRT_PI) * (an / ad) / (type(x)(2) * root * grow)
    # The Maclaurin series f - c g of Ai (f, g its two solutions' series), to x's epsilon.
    if type(x)(WIDE_PLUS_ONE) == type(x)(WIDE):
        epsilon = type(x)(1.1920928955078125e-07)
    else:
        epsilon = type(x)(2.220446049250313e-16)
    f = type(x)(1)
    g = x
    k = type(x)(1)
    m = type(x)(1)
    n = x
    t = type(x)(1)
    z = x * x * x
    while t > epsilon:
        m *= z
        k += type(x)(1)
        m /= k
        n *= z
        k += type(x)(1)
        n /= k
        m /= k
        f += m
        k += type(x)(1)
        n /= k
        g += n
        t = abs(m / f)
    c1, c2 = type(x)(0.355028053887817239260), type(x)(0.258819403792806798405)
    return type(x)(W(c1) * W(f) - W(c2 * g))


# -- orthogonal polynomials ---------------------------------------------------------------------
# Each takes (x, n): the degree n a float of x's dtype, truncated toward 0 as PyTorch's cast;
# NaN, +-inf and abs(n) >= 2**63 count as negative, where every polynomial is 0. The recurrences
# stop early once a value is NaN (abs(x) > 1 overflows to inf, then inf - inf), as PyTorch's.
# PyTorch's compiled step a * b - c is one fused multiply-add (rounded once): a float32
# polynomial cancels enough for the second rounding to show (H_8(0.38) moves by 2e-4). So
# each step here is a * b - c in float64, rounded to x's dtype once: the product of two
# float32 numbers is exact in float64, and for float64 x it is the step as written.
def chebyshev_polynomial_t(x, n):
    """T_n(x): 0 for n < 0, +-1 at abs(x) = 1, cos(n acos x) inside (-1, 1) for n > 6, else
    T_k = 2x T_(k-1) - T_(k-2).

    >>> f = chebyshev_polynomial_t
    >>> f(0.5, 3.0), f(-1.0, 3.0), f(2.0, -1.0)
    (-1.0, -1.0, 0.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if abs(x) == type(x)(1):
        return type(x)(1) if x > 0 or d % 2 == 0 else type(x)(-1)
    if d > 6 and abs(x) < type(x)(1):
        return type(x)(math.cos(type(x)(d) * type(x)(math.acos(x))))
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x
    p = type(x)(1)
    q = x
    r = x
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(x + x) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def chebyshev_polynomial_u(x, n):
    """U_n(x): 0 for n < 0, +-(n + 1) at abs(x) = 1, sin((n + 1) t) / sin(t) with t = acos x
    inside (-1, 1) for n > 8, else U_k = 2x U_(k-1) - U_(k-2).

    >>> f = chebyshev_polynomial_u
    >>> f(0.5, 3.0), f(-1.0, 3.0), f(2.0, -1.0)
    (-1.0, -4.0, 0.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if abs(x) == type(x)(1):
        return type(x)(d + 1) if x > 0 or d % 2 == 0 else -type(x)(d + 1)
    if d > 8 and abs(x) < type(x)(1):
        t = type(x)(math.acos(x))
        s = type(x)(math.sin(t))
        if s != 0:
            return type(x)(math.sin(type(x)(d + 1) * t)) / s
        return type(x)(d + 1) * type(x)(math.cos(type(x)(d + 1) * t)) / x
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x + x
    p = type(x)(1)
    q = x + x
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(x + x) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def chebyshev_polynomial_v(x, n):
    """V_n(x) (third kind): 0 for n < 0, 1 at x = 1 and +-(2n + 1) at x = -1,
    cos((n + 1/2) t) / cos(t/2) with t = acos x inside (-1, 1) for n > 8, else V's recurrence
    from V_1 = 2x - 1.

    >>> f = chebyshev_polynomial_v
    >>> f(0.5, 3.0), f(-1.0, 3.0), f(1.0, 3.0)
    (-1.0, -7.0, 1.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if abs(x) == type(x)(1):
        if x > 0:
            return type(x)(1)
        return type(x)(d + d + 1) if d % 2 == 0 else -type(x)(d + d + 1)
    if d > 8 and abs(x) < type(x)(1):
        t = type(x)(math.acos(x))
        if type(x)(math.sin(t / type(x)(2))) != type(x)(1):
            angle = (type(x)(d) + type(x)(0.5)) * t
            return type(x)(math.cos(angle)) / type(x)(math.cos(t / type(x)(2)))
        return type(x)(d + d + 1) if d % 2 == 0 else -type(x)(d + d + 1)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x + x - type(x)(1)
    p = type(x)(1)
    q = x + x - type(x)(1)
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(x + x) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def chebyshev_polynomial_w(x, n):
    """W_n(x) (fourth kind): 0 for n < 0, 2n + 1 at x = 1 and +-1 at x = -1,
    sin((n + 1/2) t) / sin(t/2) with t = acos x inside (-1, 1) for n > 8, else W's recurrence
    from W_1 = 2x + 1.

    >>> f = chebyshev_polynomial_w
    >>> f(0.5, 3.0), f(-1.0, 3.0), f(1.0, 3.0)
    (-1.0, -1.0, 7.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if abs(x) == type(x)(1):
        if x > 0:
            return type(x)(d + d + 1)
        return type(x)(1) if d % 2 == 0 else type(x)(-1)
    if d > 8 and abs(x) < type(x)(1):
        t = type(x)(math.acos(x))
        if type(x)(math.cos(t / type(x)(2))) != type(x)(1):
            angle = (type(x)(d) + type(x)(0.5)) * t
            return type(x)(math.sin(angle)) / type(x)(math.sin(t / type(x)(2)))
        if x > 0:
            return type(x)(d + d + 1)
        return type(x)(1) if d % 2 == 0 else type(x)(-1)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x + x + type(x)(1)
    p = type(x)(1)
    q = x + x + type(x)(1)
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(x + x) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


# The shifted polynomials are those of y = 2x - 1 (on [0, 1]); PyTorch spells 2y as
# y + y with y = x + x - 1 each time, which rounds as written here.
def shifted_chebyshev_polynomial_t(x, n):
    """T_n(2x - 1): 0 for n < 0, 1 at x = 1 and +-1 at x = 0, cos(n acos(2x - 1)) inside
    (0, 1) for n > 6, else the recurrence.

    >>> shifted_chebyshev_polynomial_t(0.75, 3.0), shifted_chebyshev_polynomial_t(0.0, 3.0)
    (-1.0, -1.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if x == type(x)(1):
        return type(x)(1)
    if x == 0:
        return type(x)(1) if d % 2 == 0 else type(x)(-1)
    y = x + x - type(x)(1)
    if d > 6 and abs(y) < type(x)(1):
        return type(x)(math.cos(type(x)(d) * type(x)(math.acos(y))))
    if d == 0:
        return type(x)(1)
    if d == 1:
        return y
    p = type(x)(1)
    q = y
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(y + y) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def shifted_chebyshev_polynomial_u(x, n):
    """U_n(2x - 1): 0 for n < 0, n + 1 at x = 1 and +-(n + 1) at x = 0, the sine form inside
    (0, 1) for n > 6, else the recurrence.

    >>> shifted_chebyshev_polynomial_u(0.75, 3.0), shifted_chebyshev_polynomial_u(0.0, 3.0)
    (-1.0, -4.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if x == type(x)(1):
        return type(x)(d + 1)
    if x == 0:
        return type(x)(d + 1) if d % 2 == 0 else -type(x)(d + 1)
    y = x + x - type(x)(1)
    if d > 6 and abs(y) < type(x)(1):
        t = type(x)(math.acos(y))
        s = type(x)(math.sin(t))
        if s != 0:
            return type(x)(math.sin(type(x)(d + 1) * t)) / s
        return type(x)(d + 1) * type(x)(math.cos(type(x)(d + 1) * t)) / y
    if d == 0:
        return type(x)(1)
    if d == 1:
        return y + y
    p = type(x)(1)
    q = y + y
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(y + y) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def shifted_chebyshev_polynomial_v(x, n):
    """V_n(2x - 1): 0 for n < 0, 1 at x = 1 and +-(2n + 1) at x = 0, the cosine form inside
    (0, 1) for n > 6, else the recurrence.

    >>> shifted_chebyshev_polynomial_v(0.75, 3.0), shifted_chebyshev_polynomial_v(0.0, 3.0)
    (-1.0, -7.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if x == type(x)(1):
        return type(x)(1)
    if x == 0:
        return type(x)(d + d + 1) if d % 2 == 0 else -type(x)(d + d + 1)
    y = x + x - type(x)(1)
    if d > 6 and abs(y) < type(x)(1):
        t = type(x)(math.acos(y))
        if type(x)(math.sin(t / type(x)(2))) != type(x)(1):
            angle = (type(x)(d) + type(x)(0.5)) * t
            return type(x)(math.cos(angle)) / type(x)(math.cos(t / type(x)(2)))
        return type(x)(d + d + 1) if d % 2 == 0 else -type(x)(d + d + 1)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return y + y - type(x)(1)
    p = type(x)(1)
    q = y + y - type(x)(1)
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(y + y) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def shifted_chebyshev_polynomial_w(x, n):
    """W_n(2x - 1): 0 for n < 0, 2n + 1 at x = 1 and +-1 at x = 0, the sine form inside
    (0, 1) for n > 4, else the recurrence.

    >>> shifted_chebyshev_polynomial_w(0.75, 3.0), shifted_chebyshev_polynomial_w(0.0, 3.0)
    (-1.0, -1.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if x == type(x)(1):
        return type(x)(d + d + 1)
    if x == 0:
        return type(x)(1) if d % 2 == 0 else type(x)(-1)
    y = x + x - type(x)(1)
    if d > 4 and abs(y) < type(x)(1):
        t = type(x)(math.acos(y))
        if type(x)(math.cos(t / type(x)(2))) != type(x)(1):
            angle = (type(x)(d) + type(x)(0.5)) * t
            return type(x)(math.sin(angle)) / type(x)(math.sin(t / type(x)(2)))
        return type(x)(1) if d % 2 == 0 else type(x)(-1)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return y + y + type(x)(1)
    p = type(x)(1)
    q = y + y + type(x)(1)
    r = q
    for _ in range(2, d + 1):
        if q != q:
            break
        r = type(x)(np.float64(y + y) * np.float64(q) - np.float64(p))
        p = q
        q = r
    return r


def hermite_polynomial_h(x, n):
    """The physicists' H_n(x): 0 for n < 0, H_k = 2x H_(k-1) - 2(k-1) H_(k-2); NaN past
    degree 128 in float32 and 512 in float64 (PyTorch's limits).

    >>> f = hermite_polynomial_h
    >>> f(0.5, 3.0), f(0.5, 600.0), f(0.5, -1.0)
    (-5.0, nan, 0.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x + x
    limit = 128 if type(x)(WIDE_PLUS_ONE) == type(x)(WIDE) else 512
    if d > limit:
        return type(x)(math.nan)
    p = type(x)(1)
    q = x + x
    r = type(x)(0)
    for k in range(2, d + d, 2):
        r = type(x)(np.float64(x + x) * np.float64(q) - np.float64(type(x)(k) * p))
        p = q
        q = r
    return r


def hermite_polynomial_he(x, n):
    """The probabilists' He_n(x): 0 for n < 0, He_k = x He_(k-1) - (k-1) He_(k-2); NaN past
    degree 128 in float32 and 512 in float64 (PyTorch's limits).

    >>> f = hermite_polynomial_he
    >>> f(0.5, 3.0), f(0.5, 600.0), f(0.5, -1.0)
    (-1.375, nan, 0.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x
    limit = 128 if type(x)(WIDE_PLUS_ONE) == type(x)(WIDE) else 512
    if d > limit:
        return type(x)(math.nan)
    p = type(x)(1)
    q = x
    r = q
    for k in range(1, d):
        r = type(x)(np.float64(x) * np.float64(q) - np.float64(type(x)(k) * p))
        p = q
        q = r
    return r


def laguerre_polynomial_l(x, n):
    """L_n(x): 0 for n < 0, 1 at x = 0, else (k + 1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1).

    >>> f = laguerre_polynomial_l
    >>> f(0.5, 2.0), f(0.0, 5.0), f(0.5, -1.0)
    (0.125, 1.0, 0.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if x == 0:
        return type(x)(1)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return type(x)(1) - x
    p = type(x)(1)
    q = type(x)(1) - x
    r = q
    for k in range(1, d):
        if q != q:
            break
        a = type(x)(k + k) + (type(x)(1) - x)
        r = type(x)(np.float64(a) * np.float64(q) - np.float64(type(x)(k) * p)) / type(x)(k + 1)
        p = q
        q = r
    return r


def legendre_polynomial_p(x, n):
    """P_n(x): 0 for n < 0, +-1 at abs(x) = 1, else (k + 1) P_(k+1) = (2k + 1) x P_k - k P_(k-1).

    >>> f = legendre_polynomial_p
    >>> f(0.5, 2.0), f(-1.0, 3.0), f(0.5, -1.0)
    (-0.125, -1.0, 0.0)
    """
    if not type(x)(-INT64_END) <= n < type(x)(INT64_END):
        return type(x)(0)
    d = np.int64(n)
    if d < 0:
        return type(x)(0)
    if abs(x) == type(x)(1):
        return type(x)(1) if x > 0 or d % 2 == 0 else type(x)(-1)
    if d == 0:
        return type(x)(1)
    if d == 1:
        return x
    p = type(x)(1)
    q = x
    r = q
    for k in range(1, d):
        if q != q:
            break
        a = type(x)(k + k + 1) * x
        r = type(x)(np.float64(a) * np.float64(q) - np.float64(type(x)(k) * p)) / type(x)(k + 1)
        p = q
        q = r
    return r


# -- the NumPy reference's float32 ----------------------------------------------------------------
class _CFloat32Math:
    """``math`` for a body run on NumPy float32 numbers by the NumPy reference: cos, sin,
    exp, log and acos of a float32 go to the C library's float32 functions (cosf, ...), which
    PyTorch's float32 code and the compiled kernels call. Those are not always the float64
    answer rounded (cosf differs from it on about 1% of inputs), and the polynomials and
    Bessel functions magnify one ulp. Without a C library found, ``math`` itself."""

    NAMES = "cos sin exp log acos".split()  # the C library's names (cosf, ...), not ops

    def __init__(self) -> None:
        import ctypes
        import ctypes.util

        found = ctypes.util.find_library("m") or ctypes.util.find_library("c")
        library = ctypes.CDLL(found) if found else None
        for name in self.NAMES:
            c_function = getattr(library, name + "f", None) if library else None
            if c_function is not None:
                c_function.restype, c_function.argtypes = ctypes.c_float, [ctypes.c_float]
            setattr(self, name, self._either(getattr(math, name), c_function))

    @staticmethod
    def _either(python, c_function):
        if c_function is None:
            return python
        return lambda v: np.float32(c_function(v)) if type(v) is np.float32 else python(v)

    def __getattr__(self, name: str):
        return getattr(math, name)


_C_MATH: list = []


def with_c_float32_math(function):
    """``function`` (a body of this module) with ``math`` read as ``_CFloat32Math``: the
    NumPy reference's float32, the C library's as in PyTorch and the kernels.

    >>> x = np.float32(5.5)
    >>> bool(with_c_float32_math(bessel_j0)(x) == bessel_j0(x)) or "one ulp apart here"
    True
    """
    if not _C_MATH:
        _C_MATH.append(_CFloat32Math())
    scope = dict(function.__globals__, math=_C_MATH[0])
    return type(function)(function.__code__, scope, function.__name__, function.__defaults__)
