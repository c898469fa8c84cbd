// Adds two application-specific attributes to every primitive of a glTF, for the Draco test
// (tests/test_gltf_draco_models.sh): _TEMPERATURE (SCALAR float: x + 2y + 3z of the vertex's
// position) and _PART (VEC2 UNSIGNED_SHORT: the primitive's index and the vertex's).  gltf-transform
// encodes both as Draco GENERIC attributes.
// usage: node add_generic.mjs IN.glb OUT.glb
import { NodeIO, Accessor } from '@gltf-transform/core';

const [input, output] = process.argv.slice(2);
const io = new NodeIO();
const doc = await io.read(input);
const buffer = doc.getRoot().listBuffers()[0];
let index = 0;
for (const mesh of doc.getRoot().listMeshes()) {
  for (const prim of mesh.listPrimitives()) {
    const pos = prim.getAttribute('POSITION');
    const n = pos.getCount();
    const temp = new Float32Array(n);
    const part = new Uint16Array(2 * n);
    const v = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      pos.getElement(i, v);
      temp[i] = v[0] + 2 * v[1] + 3 * v[2];
      part[2 * i] = index;
      part[2 * i + 1] = i;
    }
    prim.setAttribute('_TEMPERATURE', doc.createAccessor().setType(Accessor.Type.SCALAR).setArray(temp).setBuffer(buffer));
    prim.setAttribute('_PART', doc.createAccessor().setType(Accessor.Type.VEC2).setArray(part).setBuffer(buffer));
    index++;
  }
}
await io.write(output, doc);
