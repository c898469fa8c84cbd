// Draco variants of sample models, for tests/test_gltf_variants.sh: each input is read and
// written as one GLB with KHR_draco_mesh_compression (gltf-transform's draco(), edgebreaker),
// at the quantisation bits tests/test_gltf_variants.c states (DRACO_BITS_*), in one process so
// node and the Draco encoder start once.
// usage: node draco_variants.mjs OUT_DIR NAME=IN.gltf [NAME=IN.glb ...]   writes OUT_DIR/NAME.glb
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { draco, unpartition } from '@gltf-transform/functions';
import draco3d from 'draco3dgltf';

const [outDir, ...pairs] = process.argv.slice(2);
const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
  'draco3d.decoder': await draco3d.createDecoderModule(),
  'draco3d.encoder': await draco3d.createEncoderModule(),
});
for (const pair of pairs) {
  const at = pair.indexOf('=');
  const name = pair.slice(0, at), input = pair.slice(at + 1);
  const doc = await io.read(input);
  await doc.transform(unpartition(), draco({ method: 'edgebreaker', quantizePosition: 14, quantizeNormal: 10,
                              quantizeTexcoord: 12, quantizeColor: 8, quantizeGeneric: 12 }));
  await io.write(`${outDir}/${name}.glb`, doc);
}
