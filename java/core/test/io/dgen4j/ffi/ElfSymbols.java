package io.dgen4j.ffi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/** Reads the defined, global function symbols of an ELF64 little-endian shared library (.dynsym). */
final class ElfSymbols {
    private ElfSymbols() {}

    static Set<String> exportedFunctions(Path lib) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(lib)).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != 0x464C457F || b.get(4) != 2 || b.get(5) != 1) {
            throw new IOException(lib + " is not a 64-bit little-endian ELF file");
        }
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3A));
        int shnum = Short.toUnsignedInt(b.getShort(0x3C));
        Set<String> names = new TreeSet<>();
        for (int i = 0; i < shnum; i++) {
            int sh = (int) (shoff + (long) i * shentsize);
            if (b.getInt(sh + 4) != 11) { // SHT_DYNSYM
                continue;
            }
            long off = b.getLong(sh + 0x18);
            long size = b.getLong(sh + 0x20);
            int link = b.getInt(sh + 0x28);
            long entsize = b.getLong(sh + 0x38);
            int strSh = (int) (shoff + (long) link * shentsize);
            long strOff = b.getLong(strSh + 0x18);
            for (long e = off; e < off + size; e += entsize) {
                int nameIdx = b.getInt((int) e);
                int info = Byte.toUnsignedInt(b.get((int) e + 4));
                int shndx = Short.toUnsignedInt(b.getShort((int) e + 6));
                boolean global = (info >> 4) == 1 || (info >> 4) == 2; // GLOBAL or WEAK
                boolean function = (info & 0xF) == 2;                   // STT_FUNC
                if (global && function && shndx != 0) {
                    names.add(cString(b, (int) (strOff + nameIdx)));
                }
            }
        }
        return names;
    }

    private static String cString(ByteBuffer b, int at) {
        int end = at;
        while (b.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - at];
        b.get(at, bytes);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
