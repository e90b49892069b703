/* fastnb's natural log of float64: a scalar function and a block loop with an
   AVX2 path, included by _parametric.pxd. The AVX2 lanes do the scalar code's
   arithmetic operation for operation (no FMA: -std=c11 does not contract), so
   a value's log is the same bits on any CPU path, block split or thread count.

   x = 2**k * z, z in [0.6865, 1.373), split by the top 8 bits of z's mantissa
   into 256 subintervals whose centres c have 9 significant bits (c = 1 for the
   one around 1). log x = k log 2 + log c + log1p(r), r = (z - c) / c, |r| <=
   2**-9. z - c is exact (Sterbenz) with at most 44 significant bits, so its
   product with the 9-bit head of 1/c is exact; the tail of 1/c adds r's low
   part. log c (a double-double) and 1/c come from tools/gen_log_table.py;
   log1p(r) - r is its Taylor series to r**6 (error < 2**-65 |r|). The sum is
   carried as hi + lo (two exact Fast2Sum steps) and rounded once at the end:
   no division, no branch, within 0.57 ulp of log x on tests/test_log.py's
   sweep (NumPy's own log: 0.61), 1 -> 0 exactly. Its predecessor, fdlibm's
   e_log.c without branches, divided once a value: ~1.7x slower in the AVX2
   loop. */
#ifndef FASTNB_LOG_SIMD_H
#define FASTNB_LOG_SIMD_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

/* tools/gen_log_table.py */
#define FASTNB_LN2_HI 0x1.62e42fefa3800p-1
#define FASTNB_LN2_LO 0x1.ef35793c76730p-45
#if defined(_MSC_VER)
#define FASTNB_LOG_ALIGN __declspec(align(64))
#else
#define FASTNB_LOG_ALIGN __attribute__((aligned(64)))
#endif
/* per subinterval: the 9-bit head of 1/c, its tail, log c (hi, lo) */
static const FASTNB_LOG_ALIGN double fastnb_log_table[256][4] = {
    {0x1.7400000000000p+0, 0x1.745d1745d1746p-10, -0x1.7fafa3bd8151cp-2, 0x1.219024acd3b77p-58},
    {0x1.7300000000000p+0, 0x1.3c31507fa32c4p-10, -0x1.7cc7f7db46a0ep-2, 0x1.8438023cdc3d3p-56},
    {0x1.7200000000000p+0, 0x1.0a1fd1b7af017p-10, -0x1.79e26687cfb3ep-2, 0x1.c168817443f22p-56},
    {0x1.7100000000000p+0, 0x1.bc36ce3e0453ap-11, -0x1.76feecb947175p-2, 0x1.118d9eb4ea362p-56},
    {0x1.7000000000000p+0, 0x1.702e05c0b8170p-11, -0x1.741d876c67bb1p-2, -0x1.84a4ee3059583p-56},
    {0x1.6f00000000000p+0, 0x1.300b79300b793p-11, -0x1.713e33a46a17cp-2, 0x1.9367a05ae38d3p-56},
    {0x1.6e00000000000p+0, 0x1.f76b4337c6cb1p-12, -0x1.6e60ee6af1972p-2, -0x1.657c222d868cdp-58},
    {0x1.6d00000000000p+0, 0x1.a62681c860fb0p-12, -0x1.6b85b4cffa3fdp-2, 0x1.8af2c8dafcb08p-57},
    {0x1.6c00000000000p+0, 0x1.6c16c16c16c17p-12, -0x1.68ac83e9c6a14p-2, -0x1.a64eadd740178p-58},
    {0x1.6b00000000000p+0, 0x1.490aa31a3cfc7p-12, -0x1.65d558d4ce00bp-2, 0x1.7605a4748480ap-56},
    {0x1.6a00000000000p+0, 0x1.3cd153729043ep-12, -0x1.630030b3aac49p-2, -0x1.dc18ce51fff99p-57},
    {0x1.6900000000000p+0, 0x1.473a88d0bfd2ep-12, -0x1.602d08af091ecp-2, 0x1.6e8920c09b73fp-58},
    {0x1.6800000000000p+0, 0x1.6816816816817p-12, -0x1.5d5bddf595f30p-2, 0x1.6541148cbb8a2p-56},
    {0x1.6700000000000p+0, 0x1.9f36016719f36p-12, -0x1.5a8cadbbedfa1p-2, 0x1.e6c2bdfb3e037p-58},
    {0x1.6600000000000p+0, 0x1.ec6a5122f9016p-12, -0x1.57bf753c8d1fbp-2, 0x1.0908d15f88b63p-57},
    {0x1.6500000000000p+0, 0x1.27c29da5519cfp-11, -0x1.54f431b7be1a9p-2, 0x1.aacfdbbdab914p-56},
    {0x1.6400000000000p+0, 0x1.642c8590b2164p-11, -0x1.522ae0738a3d8p-2, 0x1.8f7e9b38a6979p-57},
    {0x1.6300000000000p+0, 0x1.ab5c45606f00bp-11, -0x1.4f637ebba9810p-2, 0x1.58cb3124b9245p-56},
    {0x1.6200000000000p+0, 0x1.fd3b80b11fd3cp-11, -0x1.4c9e09e172c3cp-2, 0x1.123615b147a5dp-58},
    {0x1.6100000000000p+0, 0x1.2cda0c6ba4eaap-10, -0x1.49da7f3bcc41fp-2, 0x1.9964a168ccacap-57},
    {0x1.6000000000000p+0, 0x1.6058160581606p-10, -0x1.4718dc271c41bp-2, -0x1.8fb4c14c56eefp-60},
    {0x1.5f00000000000p+0, 0x1.990d0a4b7ef87p-10, -0x1.44591e0539f49p-2, 0x1.2b125247b0fa5p-56},
    {0x1.5e00000000000p+0, 0x1.d6ee340579d6fp-10, -0x1.419b423d5e8c7p-2, -0x1.0dbb243827392p-57},
    {0x1.5e00000000000p+0, -0x1.e60f04c756b2ep-10, -0x1.3edf463c1683ep-2, -0x1.83d680d3c1084p-56},
    {0x1.5d00000000000p+0, -0x1.9df51b3bea367p-10, -0x1.3c25277333184p-2, 0x1.2ad27e50a8ec6p-56},
    {0x1.5c00000000000p+0, -0x1.50ce6e015babdp-10, -0x1.396ce359bbf54p-2, 0x1.ce2b31b31e8b0p-58},
    {0x1.5b00000000000p+0, -0x1.fd4a7f529fd4ap-11, -0x1.36b6776be1117p-2, 0x1.324f0e883858ep-58},
    {0x1.5a00000000000p+0, -0x1.4f076e19aae45p-11, -0x1.3401e12aecba1p-2, 0x1.cd55b8a4746c0p-58},
    {0x1.5900000000000p+0, -0x1.2dcf7ea712dcfp-12, -0x1.314f1e1d35ce4p-2, 0x1.3d69909e5c3dcp-56},
    {0x1.5800000000000p+0, 0x1.5805601580560p-14, -0x1.2e9e2bce12286p-2, -0x1.8251a3b83d97ap-62},
    {0x1.5700000000000p+0, 0x1.ed3c506b39a23p-12, -0x1.2bef07cdc9354p-2, 0x1.82dad7fd86088p-56},
    {0x1.5600000000000p+0, 0x1.cbdd3e2970f60p-11, -0x1.2941afb186b7cp-2, 0x1.856e61c515740p-57},
    {0x1.5500000000000p+0, 0x1.5555555555555p-10, -0x1.269621134db92p-2, -0x1.e0efadd9db02bp-56},
    {0x1.5400000000000p+0, 0x1.c979aee0bf805p-10, -0x1.23ec5991eba49p-2, -0x1.bb75d1addf870p-60},
    {0x1.5400000000000p+0, -0x1.bdadc2fc054e4p-10, -0x1.214456d0eb8d4p-2, -0x1.f7ae91aeba60ap-57},
    {0x1.5300000000000p+0, -0x1.402a55fead501p-10, -0x1.1e9e1678899f4p-2, -0x1.512c3749a1e4ep-56},
    {0x1.5200000000000p+0, -0x1.7c0a8e83f5718p-11, -0x1.1bf99635a6b95p-2, 0x1.12aeb84249223p-57},
    {0x1.5100000000000p+0, -0x1.ba3ddc7675243p-13, -0x1.1956d3b9bc2fap-2, -0x1.7b9d68d50a15dp-56},
    {0x1.5000000000000p+0, 0x1.5015015015015p-12, -0x1.16b5ccbacfb73p-2, -0x1.66fbd28b40935p-56},
    {0x1.4f00000000000p+0, 0x1.c7b16ea64d422p-11, -0x1.14167ef367783p-2, -0x1.e0936abd4fa6ep-62},
    {0x1.4e00000000000p+0, 0x1.7829cbc14e5e1p-10, -0x1.1178e8227e47cp-2, 0x1.0e63a5f01c691p-57},
    {0x1.4e00000000000p+0, -0x1.ef1048f4ed1c0p-10, -0x1.0edd060b78081p-2, 0x1.92b49ef282b09p-57},
    {0x1.4d00000000000p+0, -0x1.51de36942462cp-10, -0x1.0c42d676162e3p-2, -0x1.162c79d5d11eep-58},
    {0x1.4c00000000000p+0, -0x1.60912cb80f8dfp-11, -0x1.09aa572e6c6d4p-2, -0x1.43c2e68684d53p-57},
    {0x1.4b00000000000p+0, -0x1.4afd6a052bf5bp-15, -0x1.07138604d5862p-2, -0x1.cdb16ed4e9138p-56},
    {0x1.4a00000000000p+0, 0x1.3fd6bb00a5140p-11, -0x1.047e60cde83b8p-2, 0x1.0779634061cbcp-56},
    {0x1.4900000000000p+0, 0x1.4e78ecb419ba9p-10, -0x1.01eae5626c691p-2, 0x1.18290bd2932e2p-59},
    {0x1.4900000000000p+0, -0x1.feb77faddfeb7p-10, -0x1.feb2233ea07cdp-3, -0x1.8de00938b4c40p-61},
    {0x1.4800000000000p+0, -0x1.47ae147ae147bp-10, -0x1.f991c6cb3b379p-3, -0x1.f665066f980a2p-57},
    {0x1.4700000000000p+0, -0x1.18e5d34fcced8p-11, -0x1.f474b134df229p-3, 0x1.27c77ded76aadp-58},
    {0x1.4600000000000p+0, 0x1.978feb9f34381p-13, -0x1.ef5ade4dcffe6p-3, 0x1.08ab2ddc708a0p-58},
    {0x1.4500000000000p+0, 0x1.ecf163bb6500ap-11, -0x1.ea4449f04aaf5p-3, 0x1.d33919ab94074p-57},
    {0x1.4400000000000p+0, 0x1.be1958b67ebb9p-10, -0x1.e530effe71012p-3, -0x1.2276041f43042p-59},
    {0x1.4400000000000p+0, -0x1.7633d5046cb89p-10, -0x1.e020cc6235ab5p-3, -0x1.fea48dd7b81d1p-58},
    {0x1.4300000000000p+0, -0x1.4ced15703c883p-11, -0x1.db13db0d48940p-3, -0x1.aa11d49f96cb9p-58},
    {0x1.4200000000000p+0, 0x1.6a4cbcb2a247bp-13, -0x1.d60a17f903515p-3, 0x1.c0df841a71b7ap-57},
    {0x1.4100000000000p+0, 0x1.0505050505050p-10, -0x1.d1037f2655e7bp-3, -0x1.60629242471a2p-57},
    {0x1.4000000000000p+0, 0x1.e0b4439959819p-10, -0x1.cc000c9db3c52p-3, -0x1.53d154280394fp-57},
    {0x1.4000000000000p+0, -0x1.3fb013fb013fbp-10, -0x1.c6ffbc6f00f71p-3, 0x1.8e58b2c57a4a5p-57},
    {0x1.3f00000000000p+0, -0x1.70bd5a50f9260p-12, -0x1.c2028ab17f9b4p-3, -0x1.f11aa3853a5f1p-57},
    {0x1.3e00000000000p+0, 0x1.165e7254813e2p-11, -0x1.bd087383bd8adp-3, -0x1.dd355f6a516d7p-60},
    {0x1.3d00000000000p+0, 0x1.76646a9d716efp-10, -0x1.b811730b823d2p-3, -0x1.a0ee735d9f0ecp-60},
    {0x1.3d00000000000p+0, -0x1.9a96e115062f0p-10, -0x1.b31d8575bce3dp-3, 0x1.6353ab386a94dp-57},
    {0x1.3c00000000000p+0, -0x1.4f936e6b55beap-11, -0x1.ae2ca6f672bd4p-3, -0x1.ab5ca9eaa088ap-57},
    {0x1.3b00000000000p+0, 0x1.3b13b13b13b14p-12, -0x1.a93ed3c8ad9e3p-3, -0x1.bcafa9de97203p-57},
    {0x1.3a00000000000p+0, 0x1.490e1eb208984p-10, -0x1.a454082e6ab05p-3, -0x1.df207dc5c34c6p-58},
    {0x1.3a00000000000p+0, -0x1.b8f4f9e027324p-10, -0x1.9f6c407089664p-3, -0x1.35a19605e67efp-59},
    {0x1.3900000000000p+0, -0x1.6e964cfbb9206p-11, -0x1.9a8778debaa38p-3, -0x1.f47dfd871f87fp-57},
    {0x1.3800000000000p+0, 0x1.3813813813814p-12, -0x1.95a5adcf7017fp-3, -0x1.142c507fb7a3dp-58},
    {0x1.3700000000000p+0, 0x1.56f472517b708p-10, -0x1.90c6db9fcbcd9p-3, -0x1.054473941ad99p-57},
    {0x1.3700000000000p+0, -0x1.9c83087e2e1abp-10, -0x1.8beafeb38fe8cp-3, -0x1.55aa8b6997a40p-58},
    {0x1.3600000000000p+0, -0x1.18d0306a83ef1p-11, -0x1.871213750e994p-3, -0x1.d685f35eea2a0p-57},
    {0x1.3500000000000p+0, 0x1.0e7d95bc609a9p-11, -0x1.823c16551a3c2p-3, 0x1.1232ce70be781p-57},
    {0x1.3400000000000p+0, 0x1.9e6b3804d19e7p-10, -0x1.7d6903caf5ad0p-3, 0x1.ac5f0c075b847p-59},
    {0x1.3400000000000p+0, -0x1.46e92a10d387dp-10, -0x1.7898d85444c73p-3, -0x1.ef8f6ebcfb201p-58},
    {0x1.3300000000000p+0, -0x1.46252bc40bfdap-13, -0x1.73cb9074fd14dp-3, 0x1.521a000b4cf01p-57},
    {0x1.3200000000000p+0, 0x1.f1a515885fb37p-11, -0x1.6f0128b756abcp-3, 0x1.8de59c21e166cp-57},
    {0x1.3200000000000p+0, -0x1.e229c585127fbp-10, -0x1.6a399dabbd383p-3, -0x1.96332bd4b341fp-57},
    {0x1.3100000000000p+0, -0x1.737f679737f68p-11, -0x1.6574ebe8c133ap-3, 0x1.d34f0f4621bedp-60},
    {0x1.3000000000000p+0, 0x1.c82ac40260390p-12, -0x1.60b3100b09476p-3, 0x1.5b2623e05016bp-58},
    {0x1.2f00000000000p+0, 0x1.a12f684bda12fp-10, -0x1.5bf406b543db2p-3, 0x1.1f5b44c0df7e7p-61},
    {0x1.2f00000000000p+0, -0x1.2c57804bad3a8p-10, -0x1.5737cc9018cddp-3, -0x1.4f4d710fec38ep-57},
    {0x1.2e00000000000p+0, 0x1.2e025c04b8097p-15, -0x1.527e5e4a1b58dp-3, 0x1.71a9682395bfdp-61},
    {0x1.2d00000000000p+0, 0x1.42804b542804bp-10, -0x1.4dc7b897bc1c8p-3, 0x1.927d47803c5f4p-57},
    {0x1.2d00000000000p+0, -0x1.812c9fb4d812dp-10, -0x1.4913d8333b561p-3, 0x1.0d5604930f135p-58},
    {0x1.2c00000000000p+0, -0x1.0671a5c8ef02fp-12, -0x1.4462b9dc9b3dcp-3, 0x1.629c46c186385p-58},
    {0x1.2b00000000000p+0, 0x1.012b404ad012bp-10, -0x1.3fb45a59928ccp-3, 0x1.d87e6a354d056p-57},
    {0x1.2b00000000000p+0, -0x1.b8db430fbeb02p-10, -0x1.3b08b6757f2a9p-3, -0x1.70d6cdf05266cp-60},
    {0x1.2a00000000000p+0, -0x1.bed61bed61bedp-12, -0x1.365fcb0159016p-3, -0x1.7d411a5b944adp-58},
    {0x1.2900000000000p+0, 0x1.b92ddc02526e5p-11, -0x1.31b994d3a4f85p-3, 0x1.c4716bdfc0cc9p-58},
    {0x1.2900000000000p+0, -0x1.d3fb5dd3fb5ddp-10, -0x1.2d1610c86813ap-3, 0x1.499a3f25af95fp-58},
    {0x1.2800000000000p+0, -0x1.02e3af18d9484p-11, -0x1.28753bc11aba5p-3, 0x1.6394d9fa33311p-57},
    {0x1.2700000000000p+0, 0x1.a85c40939a85cp-11, -0x1.23d712a49c202p-3, 0x1.6e38161051d69p-57},
    {0x1.2700000000000p+0, -0x1.d320ca7fb65d3p-10, -0x1.1f3b925f25d41p-3, -0x1.62c9ef939ac5dp-59},
    {0x1.2600000000000p+0, -0x1.dd8f7f6d0eec8p-12, -0x1.1aa2b7e23f72ap-3, 0x1.c6ef1d9b2ef7ep-59},
    {0x1.2500000000000p+0, 0x1.cebf48bbd90e5p-11, -0x1.160c8024b27b1p-3, 0x1.2d56ff61c2bfbp-57},
    {0x1.2500000000000p+0, -0x1.b6db6db6db6dbp-10, -0x1.1178e8227e47cp-3, 0x1.0e63a5f01c691p-58},
    {0x1.2400000000000p+0, -0x1.4868e89fa4c67p-12, -0x1.0ce7ecdccc28dp-3, 0x1.692a0055dc959p-57},
    {0x1.2300000000000p+0, 0x1.159e26af37c05p-10, -0x1.08598b59e3a07p-3, 0x1.dd7009902bf32p-57},
    {0x1.2300000000000p+0, -0x1.7fb757fb757fbp-10, -0x1.03cdc0a51ec0dp-3, -0x1.39e2d3f8b7d10p-57},
    {0x1.2200000000000p+0, -0x1.21fb78121fb78p-14, -0x1.fe89139dbd566p-4, 0x1.ac9f4215f9393p-58},
    {0x1.2100000000000p+0, 0x1.5e60121579805p-10, -0x1.f57bc7d9005dbp-4, 0x1.9361574fb24e2p-58},
    {0x1.2100000000000p+0, -0x1.2e3ce60fc9de3p-10, -0x1.ec739830a1120p-4, 0x1.a2bf991780d3fp-59},
    {0x1.2000000000000p+0, 0x1.2012012012012p-12, -0x1.e3707ee30487bp-4, -0x1.09ccecd579d99p-58},
    {0x1.1f00000000000p+0, 0x1.c11f7047dc11fp-10, -0x1.da727638446a2p-4, -0x1.401fa71733019p-58},
    {0x1.1f00000000000p+0, -0x1.85e1c023d9e88p-11, -0x1.d179788219364p-4, -0x1.9daf7df76ad2ap-59},
    {0x1.1e00000000000p+0, 0x1.779d9fdc3a219p-11, -0x1.c885801bc4b23p-4, -0x1.a38cb559a6706p-58},
    {0x1.1e00000000000p+0, -0x1.c2a6346d50df1p-10, -0x1.bf968769fca11p-4, 0x1.cdc9f6f5f38c7p-59},
    {0x1.1d00000000000p+0, -0x1.f2a4bafdc61f3p-13, -0x1.b6ac88dad5b1cp-4, 0x1.0057eed1ca59fp-59},
    {0x1.1c00000000000p+0, 0x1.48bf073816367p-10, -0x1.adc77ee5aea8cp-4, -0x1.37d8f39bee659p-58},
    {0x1.1c00000000000p+0, -0x1.2d6fee44b5bfcp-10, -0x1.a4e7640b1bc38p-4, 0x1.5b5ca203e4259p-58},
    {0x1.1b00000000000p+0, 0x1.7c67f2bae2b21p-12, -0x1.9c0c32d4d2548p-4, -0x1.fb0be3ccc1532p-59},
    {0x1.1a00000000000p+0, 0x1.ee58469ee5847p-10, -0x1.9335e5d594989p-4, 0x1.478a85704ccb7p-58},
    {0x1.1a00000000000p+0, -0x1.fee61fee61feep-12, -0x1.8a6477a91dc29p-4, 0x1.fa83214904842p-59},
    {0x1.1900000000000p+0, 0x1.14e02328a7012p-10, -0x1.8197e2f40e3f0p-4, -0x1.b9f2dffbeed43p-60},
    {0x1.1900000000000p+0, -0x1.53df1bf50951bp-10, -0x1.78d02263d82d3p-4, -0x1.abca5b4fdb880p-58},
    {0x1.1800000000000p+0, 0x1.1811811811812p-12, -0x1.700d30aeac0e1p-4, 0x1.72566212cdd05p-61},
    {0x1.1700000000000p+0, 0x1.e28646f5a1060p-10, -0x1.674f089365a7ap-4, 0x1.9acd8b33f8fdcp-58},
    {0x1.1700000000000p+0, -0x1.f976bd8c8714bp-12, -0x1.5e95a4d9791cbp-4, -0x1.f38745c5c450ap-58},
    {0x1.1600000000000p+0, 0x1.23543f0c80459p-10, -0x1.55e10050e0384p-4, 0x1.45f9d61c68c1bp-58},
    {0x1.1600000000000p+0, -0x1.386822b63cbefp-10, -0x1.4d3115d207eacp-4, -0x1.769f42c7842ccp-58},
    {0x1.1500000000000p+0, 0x1.b9a3fdd5c8cb8p-12, -0x1.4485e03dbdfadp-4, -0x1.1ba349aadbc6ep-58},
    {0x1.1500000000000p+0, -0x1.e83c7d4cb125dp-10, -0x1.3bdf5a7d1ee64p-4, -0x1.7a976d3b5b45fp-59},
    {0x1.1400000000000p+0, -0x1.e2e59771b7c7fp-13, -0x1.333d7f8183f4bp-4, -0x1.a92afc8ef70b1p-58},
    {0x1.1300000000000p+0, 0x1.72044d72044d7p-10, -0x1.2aa04a44717a5p-4, 0x1.d15d38d2fa3f7p-58},
    {0x1.1300000000000p+0, -0x1.ba3b091faa214p-11, -0x1.2207b5c78549ep-4, 0x1.cc0fbce104eaap-58},
    {0x1.1200000000000p+0, 0x1.ac73ae9819b50p-11, -0x1.1973bd1465567p-4, 0x1.7558367a6acf6p-59},
    {0x1.1200000000000p+0, -0x1.73f9962df6614p-10, -0x1.10e45b3cae831p-4, 0x1.a4a128d192686p-58},
    {0x1.1100000000000p+0, 0x1.1111111111111p-12, -0x1.08598b59e3a07p-4, 0x1.dd7009902bf32p-58},
    {0x1.1000000000000p+0, 0x1.feef80441fef0p-10, -0x1.ffa6911ab9301p-5, 0x1.cd9f1f95c2eedp-59},
    {0x1.1000000000000p+0, -0x1.0fef010fef011p-12, -0x1.eea31c006b87cp-5, 0x1.3e4fc93b7b66cp-59},
    {0x1.0f00000000000p+0, 0x1.7b7eacc9686a0p-10, -0x1.dda8adc67ee4ep-5, -0x1.4e6c986f44c55p-59},
    {0x1.0f00000000000p+0, -0x1.854a0cb1b810fp-11, -0x1.ccb73cdddb2ccp-5, 0x1.e48fb0500efd4p-59},
    {0x1.0e00000000000p+0, 0x1.0195609804390p-10, -0x1.bbcebfc68f420p-5, -0x1.e5cf3a0f56f72p-60},
    {0x1.0e00000000000p+0, -0x1.37d5dc2e5a99dp-10, -0x1.aaef2d0fb10fcp-5, -0x1.a353bb42e0addp-61},
    {0x1.0d00000000000p+0, 0x1.222b1acf1ce96p-11, -0x1.9a187b573de7cp-5, 0x1.727626c86b3abp-59},
    {0x1.0d00000000000p+0, -0x1.a3ac10c9714fcp-10, -0x1.894aa149fb343p-5, -0x1.a8be97660a23dp-60},
    {0x1.0c00000000000p+0, 0x1.4f0d1682e11cdp-13, -0x1.788595a3577bap-5, -0x1.e5ef898b67923p-59},
    {0x1.0b00000000000p+0, 0x1.f9bb096771e4dp-10, -0x1.67c94f2d4bb58p-5, -0x1.0413e6505e603p-59},
    {0x1.0b00000000000p+0, -0x1.a11ba226951dcp-13, -0x1.5715c4c03ceefp-5, 0x1.bbf88ec501b56p-61},
    {0x1.0a00000000000p+0, 0x1.a0429a0429a04p-10, -0x1.466aed42de3eap-5, 0x1.cdd6f7f4a137ep-59},
    {0x1.0a00000000000p+0, -0x1.122ca83e4ff7bp-11, -0x1.35c8bfaa1306bp-5, 0x1.50830a65543a4p-63},
    {0x1.0900000000000p+0, 0x1.4fce404254fcep-10, -0x1.252f32f8d183fp-5, 0x1.947f792615916p-59},
    {0x1.0900000000000p+0, -0x1.aa26454d0eff8p-11, -0x1.149e3e4005a8dp-5, 0x1.53482d1f9d7d7p-61},
    {0x1.0800000000000p+0, 0x1.0842108421084p-10, -0x1.0415d89e74444p-5, -0x1.c05cf1d753622p-59},
    {0x1.0800000000000p+0, -0x1.183591c547990p-10, -0x1.e72bf2813ce51p-6, -0x1.75b44595cab18p-60},
    {0x1.0700000000000p+0, 0x1.930523fbe3368p-11, -0x1.c63d2ec14aaf2p-6, 0x1.ce030a686bd86p-60},
    {0x1.0700000000000p+0, -0x1.5298e1bb41278p-10, -0x1.a55f548c5c43fp-6, -0x1.ec1a5f86d41f9p-62},
    {0x1.0600000000000p+0, 0x1.26e978d4fdf3bp-11, -0x1.8492528c8cabfp-6, 0x1.d192d0619fa67p-60},
    {0x1.0600000000000p+0, -0x1.8457e3629e673p-10, -0x1.63d6178690bd6p-6, 0x1.8ed4d357c9c97p-64},
    {0x1.0500000000000p+0, 0x1.97f7d73404146p-12, -0x1.432a925980cc1p-6, 0x1.8cdaf39004192p-60},
    {0x1.0500000000000p+0, -0x1.ad8cfa66cea1ep-10, -0x1.228fb1fea2e28p-6, 0x1.cd7b66e01c26dp-61},
    {0x1.0400000000000p+0, 0x1.0410410410410p-12, -0x1.0205658935847p-6, -0x1.27c8e8416e71fp-60},
    {0x1.0400000000000p+0, -0x1.ce521f6e01039p-10, -0x1.c317384c75f06p-7, -0x1.806208c04c220p-61},
    {0x1.0300000000000p+0, 0x1.236a3ebc349dep-13, -0x1.82448a388a2aap-7, -0x1.04b16137f09a0p-62},
    {0x1.0300000000000p+0, -0x1.e6c0e23585ce8p-10, -0x1.41929f96832f0p-7, 0x1.c5517f64bc223p-61},
    {0x1.0200000000000p+0, 0x1.0204081020408p-14, -0x1.010157588de71p-7, -0x1.46662d417ced0p-62},
    {0x1.0200000000000p+0, -0x1.f6f26ba1722b4p-10, -0x1.8121214586b54p-8, -0x1.c14b9f9377a1dp-65},
    {0x1.0100000000000p+0, 0x1.0101010101010p-16, -0x1.0080559588b35p-8, -0x1.f96638cf63677p-62},
    {0x1.0100000000000p+0, -0x1.feff7fbfdfeffp-10, -0x1.0040155d5889ep-9, 0x1.8f98e1113f403p-65},
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0, 0x0.0p+0},
    {0x1.fe00000000000p-1, 0x1.fe01fe01fe020p-17, 0x1.ff00aa2b10bc0p-9, 0x1.2821ad5a6d353p-63},
    {0x1.fc00000000000p-1, 0x1.fc07f01fc07f0p-15, 0x1.fe02a6b106789p-8, -0x1.e44b7e3711ebfp-67},
    {0x1.fa00000000000p-1, 0x1.1caa01fa11caap-13, 0x1.7dc475f810a77p-7, -0x1.16d7687d3df21p-62},
    {0x1.f800000000000p-1, 0x1.f81f81f81f820p-13, 0x1.fc0a8b0fc03e4p-7, -0x1.83092c59642a1p-62},
    {0x1.f600000000000p-1, 0x1.8856506ddaba6p-12, 0x1.3cea44346a575p-6, -0x1.0cb5a902b3a1cp-62},
    {0x1.f400000000000p-1, 0x1.196792909c560p-11, 0x1.7b91b07d5b11bp-6, -0x1.5b602ace3a510p-60},
    {0x1.f200000000000p-1, 0x1.7d9108c2ad433p-11, 0x1.b9fc027af9198p-6, -0x1.0ae69229dc868p-64},
    {0x1.f000000000000p-1, 0x1.f07c1f07c1f08p-11, 0x1.f829b0e783300p-6, 0x1.33e3f04f1ef23p-60},
    {0x1.ef00000000000p-1, -0x1.8e01ee9c7f846p-11, 0x1.1b0d98923d980p-5, -0x1.e9ae889bac481p-60},
    {0x1.ed00000000000p-1, -0x1.fc267f099fc26p-12, 0x1.39e87b9febd60p-5, -0x1.5bfa937f551bbp-59},
    {0x1.eb00000000000p-1, -0x1.7f8545fe15180p-13, 0x1.58a5bafc8e4d5p-5, -0x1.ce55c2b4e2b72p-59},
    {0x1.e900000000000p-1, 0x1.31abf0b7672a0p-13, 0x1.77458f632dcfcp-5, 0x1.18d3ca87b9296p-59},
    {0x1.e700000000000p-1, 0x1.06a965d43919bp-11, 0x1.95c830ec8e3ebp-5, 0x1.f5a0e80520bf2p-59},
    {0x1.e500000000000p-1, 0x1.ceb240795ceb2p-11, 0x1.b42dd711971bfp-5, -0x1.eb9759c130499p-60},
    {0x1.e400000000000p-1, -0x1.5ba188f963303p-11, 0x1.d276b8adb0b52p-5, 0x1.1e3c53257fd47p-61},
    {0x1.e200000000000p-1, -0x1.e1e1e1e1e1e1ep-13, 0x1.f0a30c01162a6p-5, 0x1.85f325c5bbacdp-59},
    {0x1.e000000000000p-1, 0x1.e01e01e01e01ep-13, 0x1.075983598e471p-4, 0x1.80da5333c45b8p-59},
    {0x1.de00000000000p-1, 0x1.75b8fe21a291cp-11, 0x1.16536eea37ae1p-4, -0x1.79da3e8c22cdap-60},
    {0x1.dd00000000000p-1, -0x1.7f88d7f88d7f9p-11, 0x1.253f62f0a1417p-4, -0x1.c125963fc4cfdp-62},
    {0x1.db00000000000p-1, -0x1.9f89467e251a0p-13, 0x1.341d7961bd1d1p-4, -0x1.b599f227becbbp-58},
    {0x1.d900000000000p-1, 0x1.79118f3fc4da2p-12, 0x1.42edcbea646f0p-4, 0x1.ddd4f935996c9p-59},
    {0x1.d700000000000p-1, 0x1.ed952e0b0ce46p-11, 0x1.51b073f06183fp-4, 0x1.a49e39a1a8be4p-58},
    {0x1.d600000000000p-1, -0x1.a9bfc546a6ff1p-12, 0x1.60658a93750c4p-4, -0x1.388458ec21b6ap-58},
    {0x1.d400000000000p-1, 0x1.d41d41d41d41dp-13, 0x1.6f0d28ae56b4cp-4, -0x1.906d99184b992p-58},
    {0x1.d200000000000p-1, 0x1.cb28ff16c69aep-11, 0x1.7da766d7b12cdp-4, -0x1.eeedfcdd94131p-58},
    {0x1.d100000000000p-1, -0x1.a538489fc5e69p-12, 0x1.8c345d6319b21p-4, -0x1.4a697ab3424a9p-61},
    {0x1.cf00000000000p-1, 0x1.372e225fe30d9p-12, 0x1.9ab42462033adp-4, -0x1.2099e1c184e8ep-59},
    {0x1.ce00000000000p-1, -0x1.ea5dbf193d4bbp-11, 0x1.a926d3a4ad563p-4, 0x1.942f48aa70ea9p-58},
    {0x1.cc00000000000p-1, -0x1.9269fe341926ap-13, 0x1.b78c82bb0eda1p-4, 0x1.0878cf0327e21p-61},
    {0x1.ca00000000000p-1, 0x1.2cc157b864407p-11, 0x1.c5e548f5bc743p-4, 0x1.5d617ef8161b1p-60},
    {0x1.c900000000000p-1, -0x1.3669411d6f7f9p-11, 0x1.d4313d66cb35dp-4, 0x1.790dd951d90fap-58},
    {0x1.c700000000000p-1, 0x1.c71c71c71c71cp-13, 0x1.e27076e2af2e6p-4, -0x1.61578001e0162p-60},
    {0x1.c600000000000p-1, -0x1.dacbbcad9e8f8p-11, 0x1.f0a30c01162a6p-4, 0x1.85f325c5bbacdp-58},
    {0x1.c400000000000p-1, -0x1.c3f8f01c3f8f0p-15, 0x1.fec9131dbeabbp-4, -0x1.5746b9981b36cp-58},
    {0x1.c200000000000p-1, 0x1.ad4e4ba80709bp-11, 0x1.0671512ca596ep-3, 0x1.50c647eb86499p-58},
    {0x1.c100000000000p-1, -0x1.f8fc7e3f1f8fcp-13, 0x1.0d77e7cd08e59p-3, 0x1.9a5dc5e9030acp-57},
    {0x1.bf00000000000p-1, 0x1.60fba1a362bb0p-11, 0x1.14785846742acp-3, 0x1.a28813e3a7f07p-57},
    {0x1.be00000000000p-1, -0x1.6a3b35fc845a9p-12, 0x1.1b72ad52f67a0p-3, 0x1.483023472cd74p-58},
    {0x1.bc00000000000p-1, 0x1.3f59620f9ece9p-11, 0x1.2266f190a5acbp-3, 0x1.f547bf1809e88p-57},
    {0x1.bb00000000000p-1, -0x1.83759f2298376p-12, 0x1.29552f81ff523p-3, 0x1.301771c407dbfp-57},
    {0x1.b900000000000p-1, 0x1.478ac63fc8d5cp-11, 0x1.303d718e47fd3p-3, -0x1.6b9c7d96091fap-63},
    {0x1.b800000000000p-1, -0x1.49e112e63a6a8p-12, 0x1.371fc201e8f74p-3, 0x1.de6cb62af18a0p-58},
    {0x1.b600000000000p-1, 0x1.78b8efbb8148cp-11, 0x1.3dfc2b0ecc62ap-3, -0x1.ab3a8e7d81017p-58},
    {0x1.b500000000000p-1, -0x1.7e4b17e4b17e5p-13, 0x1.44d2b6ccb7d1ep-3, 0x1.9f4f6543e1f88p-57},
    {0x1.b300000000000p-1, 0x1.d212b601b3748p-11, 0x1.4ba36f39a55e5p-3, 0x1.68981bcc36756p-57},
    {0x1.b200000000000p-1, 0x1.b2036406c80d9p-16, 0x1.526e5e3a1b438p-3, -0x1.746ff8a470d3ap-57},
    {0x1.b100000000000p-1, -0x1.ad3389b75705fp-11, 0x1.59338d9982086p-3, -0x1.65d22aa8ad7cfp-58},
    {0x1.af00000000000p-1, 0x1.435e50d79435ep-12, 0x1.5ff3070a793d4p-3, -0x1.bc60efafc6f6ep-58},
    {0x1.ae00000000000p-1, -0x1.05e01adbe87f9p-11, 0x1.66acd4272ad51p-3, -0x1.0900e4e1ea8b2p-58},
    {0x1.ac00000000000p-1, 0x1.5c06b15c06b16p-11, 0x1.6d60fe719d21dp-3, -0x1.caae268ecd179p-57},
    {0x1.ab00000000000p-1, -0x1.c5a0f02806abcp-14, 0x1.740f8f54037a5p-3, -0x1.b264062a84cdbp-58},
    {0x1.aa00000000000p-1, -0x1.c427e567109f9p-11, 0x1.7ab890210d909p-3, 0x1.be36b2d6a0608p-59},
    {0x1.a800000000000p-1, 0x1.73289870ac52ep-12, 0x1.815c0a14357ebp-3, -0x1.4be48073a0564p-58},
    {0x1.a700000000000p-1, -0x1.7f2c97f2c97f3p-12, 0x1.87fa06520c911p-3, -0x1.bf7fdbfa08d9ap-57},
    {0x1.a500000000000p-1, 0x1.d041da2292856p-11, 0x1.8e928de886d41p-3, -0x1.569d851a56770p-57},
    {0x1.a400000000000p-1, 0x1.a41a41a41a41ap-13, 0x1.9525a9cf456b4p-3, 0x1.d904c1d4e2e26p-57},
    {0x1.a300000000000p-1, -0x1.eabc1d71afd8cp-12, 0x1.9bb362e7dfb83p-3, 0x1.575e31f003e0cp-57},
    {0x1.a100000000000p-1, 0x1.b4fe5e92c0686p-11, 0x1.a23bc1fe2b563p-3, 0x1.93711b07a998cp-59},
    {0x1.a000000000000p-1, 0x1.a01a01a01a01ap-13, 0x1.a8becfc882f19p-3, -0x1.e8c37918c39ebp-58},
    {0x1.9f00000000000p-1, -0x1.b8b577e613717p-12, 0x1.af3c94e80bff3p-3, -0x1.398cff3641985p-58},
    {0x1.9d00000000000p-1, 0x1.e7c5dada0b4e5p-11, 0x1.b5b519e8fb5a4p-3, 0x1.ba27fdc19e1a0p-57},
    {0x1.9c00000000000p-1, 0x1.68a7725080ce1p-12, 0x1.bc286742d8cd6p-3, 0x1.4fce744870f55p-58},
    {0x1.9b00000000000p-1, -0x1.db15aaef25b7cp-13, 0x1.c2968558c18c1p-3, -0x1.73dee38a3fb6bp-57},
    {0x1.9a00000000000p-1, -0x1.999999999999ap-11, 0x1.c8ff7c79a9a22p-3, -0x1.4f689f8434012p-57},
    {0x1.9800000000000p-1, 0x1.4bc363b03fccfp-11, 0x1.cf6354e09c5dcp-3, 0x1.239a07d55b695p-57},
    {0x1.9700000000000p-1, 0x1.c9f01970e4f81p-14, 0x1.d5c216b4fbb91p-3, 0x1.6e443597e4d40p-57},
    {0x1.9600000000000p-1, -0x1.a27a0e442936bp-12, 0x1.dc1bca0abec7dp-3, 0x1.834c51998b6fcp-57},
    {0x1.9500000000000p-1, -0x1.d3c0ca4587e6bp-11, 0x1.e27076e2af2e6p-3, -0x1.61578001e0162p-59},
    {0x1.9300000000000p-1, 0x1.319fe6cb39806p-11, 0x1.e8c0252aa5a60p-3, -0x1.6e03a39bfc89bp-59},
    {0x1.9200000000000p-1, 0x1.f693a1c451ab3p-14, 0x1.ef0adcbdc5936p-3, 0x1.48637950dc20dp-57},
    {0x1.9100000000000p-1, -0x1.5876ff3795877p-12, 0x1.f550a564b7b37p-3, 0x1.c5f6dfd018c37p-61},
    {0x1.9000000000000p-1, -0x1.8f9c18f9c18fap-11, 0x1.fb9186d5e3e2bp-3, -0x1.caaae64f21acbp-57},
    {0x1.8e00000000000p-1, 0x1.949ebc4dcfc1cp-11, 0x1.00e6c45ad501dp-2, -0x1.cb9568ff6feadp-57},
    {0x1.8d00000000000p-1, 0x1.80c6980c6980cp-12, 0x1.0402594b4d041p-2, -0x1.28ec217a5022dp-57},
    {0x1.8c00000000000p-1, -0x1.8bfce8062ff3ap-16, 0x1.071b85fcd590dp-2, 0x1.d1707f97bde80p-58},
    {0x1.8b00000000000p-1, -0x1.a3784a062b2e4p-12, 0x1.0a324e27390e3p-2, 0x1.7dcfde8061c03p-56},
    {0x1.8a00000000000p-1, -0x1.8fc27f9d98fc2p-11, 0x1.0d46b579ab74bp-2, 0x1.03ec81c3cbd92p-57},
    {0x1.8800000000000p-1, 0x1.b97c2aec12653p-11, 0x1.1058bf9ae4ad5p-2, 0x1.89fa0ab4cb31dp-58},
    {0x1.8700000000000p-1, 0x1.09ef3024ae3bap-11, 0x1.136870293a8b0p-2, 0x1.7b66298edd24ap-56},
    {0x1.8600000000000p-1, 0x1.8618618618618p-13, 0x1.1675cababa60ep-2, 0x1.ce63eab883717p-61},
    {0x1.8500000000000p-1, -0x1.fe7b0ff3d87fap-14, 0x1.1980d2dd4236fp-2, 0x1.9d3d1b0e4d147p-56},
    {0x1.8400000000000p-1, -0x1.b442a6a0916b9p-12, 0x1.1c898c16999fbp-2, -0x1.0e5c62aff1c44p-60},
    {0x1.8300000000000p-1, -0x1.6d7f9f56d7f9fp-11, 0x1.1f8ff9e48a2f3p-2, -0x1.c9fdf9a0c4b07p-56},
    {0x1.8200000000000p-1, -0x1.f9f9f9f9f9fa0p-11, 0x1.22941fbcf7966p-2, -0x1.76f5eb09628afp-56},
    {0x1.8000000000000p-1, 0x1.8060180601806p-11, 0x1.2596010df763ap-2, -0x1.0f76c57075e9ep-58},
    {0x1.7f00000000000p-1, 0x1.017f405fd017fp-11, 0x1.2895a13de86a3p-2, 0x1.7ad24c13f040ep-56},
    {0x1.7e00000000000p-1, 0x1.12a8ad278e8ddp-12, 0x1.2b9303ab89d25p-2, -0x1.896b5fd852ad4p-56},
    {0x1.7d00000000000p-1, 0x1.7d05f417d05f4p-15, 0x1.2e8e2bae11d31p-2, -0x1.8f4cdb95ebdf9p-56},
    {0x1.7c00000000000p-1, -0x1.4c6dd1fe8414cp-13, 0x1.31871c9544185p-2, -0x1.51acc4c09b379p-60},
    {0x1.7b00000000000p-1, -0x1.6efb8f899e55dp-12, 0x1.347dd9a987d55p-2, -0x1.4dd4c580919f8p-57},
    {0x1.7a00000000000p-1, -0x1.156512719d242p-11, 0x1.3772662bfd85bp-2, -0x1.b5629d8117de7p-59},
    {0x1.7900000000000p-1, -0x1.6cdfa1d6cdfa2p-11, 0x1.3a64c556945eap-2, -0x1.c68651945f97cp-57},
    {0x1.7800000000000p-1, -0x1.bdfb994e7cb30p-11, 0x1.3d54fa5c1f710p-2, -0x1.e3265c6a1c98dp-56},
    {0x1.7600000000000p-1, 0x1.f7390d2a6c406p-11, 0x1.404308686a7e4p-2, -0x1.0bcfb6082ce6dp-56},
    {0x1.7500000000000p-1, 0x1.b2b0805d5b2b1p-11, 0x1.432ef2a04e814p-2, -0x1.29931715ac903p-56},
};

#define FASTNB_LOG_OFF 0x3fe5f80000000000ULL      /* centre 0 less half a step */
#define FASTNB_LOG_CENTRE0 0x3fe6000000000000ULL
#define FASTNB_LOG_KBIAS 0x4800000000000000ULL    /* k + 1152 > 0, subnormals too */
#define FASTNB_LOG_KD_BITS 0x4330000000000000ULL  /* 2**52 */
#define FASTNB_LOG_KD_OFFSET (4503599627370496.0 + 1152.0)
#define FASTNB_LOG_TINY 2.2250738585072014e-308   /* DBL_MIN */
#define FASTNB_LOG_SCALE 4503599627370496.0       /* 2**52 */

static inline double fastnb_log_as_double(uint64_t bits) {
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

/* log(x) for every double x: -inf at +-0, NaN below 0 and at NaN, inf at inf. */
static inline double fastnb_log(double x) {
    int tiny = x < FASTNB_LOG_TINY;
    double xs = tiny ? x * FASTNB_LOG_SCALE : x;
    uint64_t ix, tmp, iz, i, cbits;
    double z, c, d, r_hi, r_lo, r, kd, t, w, w_err, hi, hi_err, p, lo, y;
    memcpy(&ix, &xs, 8);
    ix -= tiny ? (52ULL << 52) : 0;
    tmp = ix - FASTNB_LOG_OFF;
    i = (tmp >> 44) & 255;
    iz = ix - (tmp & (0xfffULL << 52));
    cbits = FASTNB_LOG_CENTRE0 + (i << 44);
    z = fastnb_log_as_double(iz);
    c = fastnb_log_as_double(cbits);
    kd = fastnb_log_as_double(FASTNB_LOG_KD_BITS + ((tmp + FASTNB_LOG_KBIAS) >> 52))
         - FASTNB_LOG_KD_OFFSET;
    d = z - c;
    r_hi = d * fastnb_log_table[i][0];
    r_lo = d * fastnb_log_table[i][1];
    r = r_hi + r_lo;
    t = kd * FASTNB_LN2_HI;
    w = t + fastnb_log_table[i][2];
    w_err = (t - w) + fastnb_log_table[i][2];
    hi = w + r_hi;
    hi_err = (w - hi) + r_hi;
    p = (r * r) * (-0.5 + r * (0.33333333333333331 + r * (-0.25 + r * (
        0.20000000000000001 + r * -0.16666666666666666))));
    lo = ((kd * FASTNB_LN2_LO + fastnb_log_table[i][3]) + ((w_err + hi_err) + r_lo)) + p;
    y = hi + lo;
    if (x > 0.0 && x < INFINITY)
        return y;
    return x == 0.0 ? -INFINITY : (x > 0.0 ? INFINITY : NAN);
}

/* The logs of n values; `outside` stands for the log of a value that is not
   finite and > 0 (NaN included) when outside_given, else the log's own
   answer there. One call per 512 values or so: the AVX2 loop takes 4 at a
   time, the scalar function the rest. */
#if defined(__AVX2__)
#include <immintrin.h>
#define FASTNB_LOG_SIMD_WIDTH 4

static inline __m256d fastnb_log4(__m256d x) {
    const __m256d vtiny = _mm256_set1_pd(FASTNB_LOG_TINY);
    __m256d tinymask = _mm256_cmp_pd(x, vtiny, _CMP_LT_OQ);
    __m256d xs = _mm256_blendv_pd(x, _mm256_mul_pd(x, _mm256_set1_pd(FASTNB_LOG_SCALE)),
                                  tinymask);
    __m256i ix = _mm256_sub_epi64(
        _mm256_castpd_si256(xs),
        _mm256_and_si256(_mm256_castpd_si256(tinymask),
                         _mm256_set1_epi64x((long long)(52ULL << 52))));
    __m256i tmp = _mm256_sub_epi64(ix, _mm256_set1_epi64x((long long)FASTNB_LOG_OFF));
    __m256i i = _mm256_and_si256(_mm256_srli_epi64(tmp, 44), _mm256_set1_epi64x(255));
    __m256i iz = _mm256_sub_epi64(
        ix, _mm256_and_si256(tmp, _mm256_set1_epi64x((long long)(0xfffULL << 52))));
    __m256d z = _mm256_castsi256_pd(iz);
    __m256d c = _mm256_castsi256_pd(_mm256_add_epi64(
        _mm256_set1_epi64x((long long)FASTNB_LOG_CENTRE0), _mm256_slli_epi64(i, 44)));
    __m256d kd = _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_add_epi64(
            _mm256_set1_epi64x((long long)FASTNB_LOG_KD_BITS),
            _mm256_srli_epi64(_mm256_add_epi64(
                tmp, _mm256_set1_epi64x((long long)FASTNB_LOG_KBIAS)), 52))),
        _mm256_set1_pd(FASTNB_LOG_KD_OFFSET));
    /* the four lanes' table rows, transposed: four 32-byte loads and four
       unpacks and four lane permutes (gathers are slower on AMD EPYC) */
    long long at[4];
    _mm256_storeu_si256((__m256i*)at, i);
    __m256d e0 = _mm256_loadu_pd(fastnb_log_table[at[0]]);
    __m256d e1 = _mm256_loadu_pd(fastnb_log_table[at[1]]);
    __m256d e2 = _mm256_loadu_pd(fastnb_log_table[at[2]]);
    __m256d e3 = _mm256_loadu_pd(fastnb_log_table[at[3]]);
    __m256d u01 = _mm256_unpacklo_pd(e0, e1), v01 = _mm256_unpackhi_pd(e0, e1);
    __m256d u23 = _mm256_unpacklo_pd(e2, e3), v23 = _mm256_unpackhi_pd(e2, e3);
    __m256d inv_head = _mm256_permute2f128_pd(u01, u23, 0x20);
    __m256d log_hi = _mm256_permute2f128_pd(u01, u23, 0x31);
    __m256d inv_tail = _mm256_permute2f128_pd(v01, v23, 0x20);
    __m256d log_lo = _mm256_permute2f128_pd(v01, v23, 0x31);

    __m256d d = _mm256_sub_pd(z, c);
    __m256d r_hi = _mm256_mul_pd(d, inv_head);
    __m256d r_lo = _mm256_mul_pd(d, inv_tail);
    __m256d r = _mm256_add_pd(r_hi, r_lo);
    __m256d t = _mm256_mul_pd(kd, _mm256_set1_pd(FASTNB_LN2_HI));
    __m256d w = _mm256_add_pd(t, log_hi);
    __m256d w_err = _mm256_add_pd(_mm256_sub_pd(t, w), log_hi);
    __m256d hi = _mm256_add_pd(w, r_hi);
    __m256d hi_err = _mm256_add_pd(_mm256_sub_pd(w, hi), r_hi);
    __m256d p = _mm256_add_pd(_mm256_set1_pd(0.20000000000000001),
                              _mm256_mul_pd(r, _mm256_set1_pd(-0.16666666666666666)));
    p = _mm256_add_pd(_mm256_set1_pd(-0.25), _mm256_mul_pd(r, p));
    p = _mm256_add_pd(_mm256_set1_pd(0.33333333333333331), _mm256_mul_pd(r, p));
    p = _mm256_add_pd(_mm256_set1_pd(-0.5), _mm256_mul_pd(r, p));
    p = _mm256_mul_pd(_mm256_mul_pd(r, r), p);
    __m256d lo = _mm256_add_pd(
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(kd, _mm256_set1_pd(FASTNB_LN2_LO)), log_lo),
                      _mm256_add_pd(_mm256_add_pd(w_err, hi_err), r_lo)),
        p);
    __m256d y = _mm256_add_pd(hi, lo);
    /* x > 0 and finite: y; else -inf at 0, inf at inf, NaN */
    __m256d vinf = _mm256_set1_pd(INFINITY);
    __m256d zero = _mm256_setzero_pd();
    __m256d ok = _mm256_and_pd(_mm256_cmp_pd(x, zero, _CMP_GT_OQ),
                               _mm256_cmp_pd(x, vinf, _CMP_LT_OQ));
    __m256d special = _mm256_blendv_pd(_mm256_set1_pd(NAN), vinf,
                                       _mm256_cmp_pd(x, zero, _CMP_GT_OQ));
    special = _mm256_blendv_pd(special, _mm256_set1_pd(-INFINITY),
                               _mm256_cmp_pd(x, zero, _CMP_EQ_OQ));
    return _mm256_blendv_pd(special, y, ok);
}
#else
#define FASTNB_LOG_SIMD_WIDTH 0
#endif

#define FASTNB_LOG_BLOCK(NAME, TYPE, LOAD4)                                        \
static inline void NAME(const TYPE* x, ptrdiff_t n, double* out,                   \
                        int outside_given, double outside) {                       \
    ptrdiff_t t = 0;                                                               \
    LOAD4                                                                          \
    for (; t < n; t++) {                                                           \
        double v = (double)x[t];                                                   \
        out[t] = (outside_given && !(v > 0.0 && v < INFINITY)) ? outside          \
                                                               : fastnb_log(v);   \
    }                                                                              \
}

#if defined(__AVX2__)
#define FASTNB_LOG_VECTOR_LOOP(LOADV)                                              \
    const __m256d vout = _mm256_set1_pd(outside);                                  \
    const __m256d vinf4 = _mm256_set1_pd(INFINITY);                               \
    for (; t + 4 <= n; t += 4) {                                                   \
        __m256d v = LOADV;                                                         \
        __m256d lv = fastnb_log4(v);                                               \
        if (outside_given) {                                                       \
            __m256d ok = _mm256_and_pd(                                            \
                _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_GT_OQ),                 \
                _mm256_cmp_pd(v, vinf4, _CMP_LT_OQ));                              \
            lv = _mm256_blendv_pd(vout, lv, ok);                                   \
        }                                                                          \
        _mm256_storeu_pd(out + t, lv);                                             \
    }
FASTNB_LOG_BLOCK(fastnb_logs_f64, double,
                 FASTNB_LOG_VECTOR_LOOP(_mm256_loadu_pd(x + t)))
FASTNB_LOG_BLOCK(fastnb_logs_f32, float,
                 FASTNB_LOG_VECTOR_LOOP(_mm256_cvtps_pd(_mm_loadu_ps(x + t))))
#else
FASTNB_LOG_BLOCK(fastnb_logs_f64, double, )
FASTNB_LOG_BLOCK(fastnb_logs_f32, float, )
#endif

#endif
