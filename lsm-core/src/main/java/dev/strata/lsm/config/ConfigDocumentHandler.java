package dev.strata.lsm.config;

import dev.strata.lsm.ConfigException;
import dev.strata.lsm.StoreConfig;
import dev.strata.lsm.io.StorageIOs;
import dev.strata.lsm.policy.PolicyParameter;
import dev.strata.lsm.WalSyncMode;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.helpers.DefaultHandler;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Reads a configuration document that has already passed the schema, element by element,
 * into a {@link StoreConfig.Builder}, and builds it once at the end of the document.
 *
 * <p>The rules stay in {@link StoreConfig.Builder#build()} and the policy SPI; nothing here
 * repeats them, and nothing is validated twice. So that an error still points at the element
 * that carries the bad value, every setting read is remembered with its element, under the
 * name {@link ConfigException#setting()} uses ({@code memtableBytes}, {@code mergePolicy.fanout},
 * {@code family.users.memtableBytes}, ...): the build's error is reported there. What only the
 * document can get wrong (an element or parameter given twice) is reported where it is read.
 *
 * <p>Single use, one document, one thread.
 */
final class ConfigDocumentHandler extends DefaultHandler {
    private final String sourceName;
    private final StoreConfig.Builder builder = StoreConfig.builder();
    private Locator locator;
    private StoreConfig result;

    /** The open {@code <mergePolicy>}'s name and the params read so far; null outside it. */
    private String policy;
    private final Map<String, String> policyParams = new LinkedHashMap<>();
    private final Map<String, XmlPosition> policyParamPositions = new LinkedHashMap<>();

    /** The open {@code <storageIO>}'s name and the params read so far; null outside it. */
    private String storage;
    private final Map<String, String> storageParams = new LinkedHashMap<>();
    private final Map<String, XmlPosition> storageParamPositions = new LinkedHashMap<>();
    /** The element that gave each setting, by {@link ConfigException#setting()} name. */
    private final Map<String, Element> settingElements = new LinkedHashMap<>();
    /** The open {@code <family>}, its options so far; null outside it. */
    private Element familyElement;
    private dev.strata.lsm.FamilyOptions.Builder family;
    /** The open family's name (SAX reuses the attributes object, so it is kept here). */
    private String familyName;
    /** Where each family was given, by name. */
    private final Map<String, XmlPosition> familyPositions = new LinkedHashMap<>();
    /** Where each level's {@code <compression>} was given. */
    private final Map<Integer, XmlPosition> levelCompressionPositions = new LinkedHashMap<>();

    ConfigDocumentHandler(String sourceName) {
        this.sourceName = sourceName;
    }

    /** The configuration, once the whole document has been read. */
    StoreConfig result() {
        if (result == null) {
            throw new IllegalStateException("the document has not been read to its end");
        }
        return result;
    }

    @Override
    public void setDocumentLocator(Locator locator) {
        this.locator = locator;
    }

    @Override
    public void startElement(String uri, String localName, String qName, Attributes attributes) {
        Element e = new Element(localName, attributes, XmlPosition.of(sourceName, locator));
        switch (localName) {
            case "store" -> {
                // The root carries nothing itself.
            }
            case "families" -> {
                // A container: its <family> children carry everything.
            }
            case "family" -> startFamily(e);
            case "memtable" -> {
                if (family != null) {
                    try {
                        e.bytes("bytes").ifPresent(family::memtableBytes);
                        e.integer("maxImmutable").ifPresent(family::maxImmutableMemtables);
                    } catch (IllegalArgumentException ex) {
                        throw e.at.error("<memtable> of family \"" + familyName + "\": "
                                + ex.getMessage(), ex);
                    }
                    gives(e, "family." + familyName + ".memtableBytes", "family." + familyName
                            + ".maxImmutableMemtables");
                    return;
                }
                e.bytes("bytes").ifPresent(builder::memtableBytes);
                e.integer("maxImmutable").ifPresent(builder::maxImmutableMemtables);
                gives(e, "memtableBytes", "maxImmutableMemtables");
            }
            case "wal" -> {
                e.text("mode").map(m -> WalSyncMode.valueOf(m.toUpperCase(Locale.ROOT))).ifPresent(builder::walMode);
                e.flag("atomicFlush").ifPresent(builder::atomicFlush);
                gives(e, "walMode", "atomicFlush");
            }
            case "sstable" -> {
                e.intBytes("pageSize").ifPresent(builder::pageSize);
                e.integer("bloomBitsPerKey").ifPresent(builder::bloomBitsPerKey);
                e.text("prefixBloom").ifPresent(p -> builder.prefixExtractor(prefixExtractor(e, p)));
                e.text("compression").ifPresent(c -> builder.compression(codec(e, c)));
                e.text("bottommostCompression").ifPresent(c -> builder.bottommostCompression(codec(e, c)));
                e.integer("compressionLevel").ifPresent(builder::compressionLevel);
                e.integer("lz4Acceleration").ifPresent(builder::lz4Acceleration);
                e.text("leafEncoding").ifPresent(builder::leafEncoding);
                e.integer("restartInterval").ifPresent(builder::restartInterval);
                e.text("parallelCompression").ifPresent(builder::parallelCompression);
                gives(e, "pageSize", "bloomBitsPerKey", "prefixExtractor", "compression", "bottommostCompression",
                        "compressionLevel", "lz4Acceleration", "leafEncoding", "restartInterval",
                        "parallelCompression");
                // The page size bounds the largest value: a default value limit it breaks is its doing.
                if (e.text("pageSize").isPresent()) {
                    settingElements.putIfAbsent("maxValueBytes", e);
                }
            }
            case "compression" -> {
                int level = e.integer("level").orElseThrow();
                if (levelCompressionPositions.containsKey(level)) {
                    XmlPosition earlier = levelCompressionPositions.get(level);
                    throw e.at.error("<compression> for level " + level + " is given twice; first at line "
                            + earlier.line() + ", column " + earlier.column());
                }
                if (level < 0 || level > 64) {
                    throw e.at.error("<compression>: bad value " + level + " for level: expected a level from 0 to 64");
                }
                levelCompressionPositions.put(level, e.at);
                builder.levelCompression(level, codec(e, e.text("codec").orElseThrow()));
                gives(e, "levelCompression." + level);
            }
            case "blockCache" -> {
                e.bytes("bytes").ifPresent(builder::blockCacheBytes);
                e.text("admission").ifPresent(builder::blockCacheAdmission);
                gives(e, "blockCacheBytes", "blockCacheAdmission");
            }
            case "memory" -> {
                e.flag("offHeap").ifPresent(builder::offHeap);
                gives(e, "offHeap");
            }
            case "background" -> {
                e.integer("threads").ifPresent(builder::backgroundThreads);
                e.longValue("policyTickMillis").ifPresent(builder::policyTickMillis);
                e.integer("subcompactions").ifPresent(builder::subcompactions);
                gives(e, "backgroundThreads", "policyTickMillis", "subcompactions");
            }
            case "writeStall" -> {
                e.bytes("delayedWriteRate").ifPresent(builder::delayedWriteRate);
                gives(e, "delayedWriteRate");
            }
            case "limits" -> {
                e.intBytes("maxValueBytes").ifPresent(builder::maxValueBytes);
                gives(e, "maxValueBytes");
            }
            case "manifest" -> {
                e.bytes("rewriteBytes").ifPresent(builder::manifestRewriteBytes);
                gives(e, "manifestRewriteBytes");
            }
            case "obsoleteFiles" -> {
                e.bytes("deleteBatchBytes").ifPresent(builder::obsoleteDeleteBatchBytes);
                gives(e, "obsoleteDeleteBatchBytes");
            }
            case "mergePolicy" -> startPolicy(e);
            case "mergeOperator" -> {
                builder.mergeOperator(e.text("name").orElseThrow());
                e.integer("maxSuccessiveMerges").ifPresent(builder::maxSuccessiveMerges);
                gives(e, "mergeOperator", "maxSuccessiveMerges");
            }
            case "storageIO" -> startStorage(e);
            case "param" -> {
                if (storage != null) {
                    addStorageParam(e);
                } else {
                    addParam(e);
                }
            }
            // The schema admits nothing else; reaching here means schema and reader disagree.
            default -> throw e.at.error("element <" + localName + "> is not part of the configuration format");
        }
    }

    @Override
    public void endElement(String uri, String localName, String qName) {
        if (localName.equals("mergePolicy") && family != null) {
            family.mergePolicy(policy, policyParams);
            policy = null;
        } else if (localName.equals("family")) {
            String name = familyName;
            try {
                builder.family(name, family.build());
            } catch (IllegalArgumentException ex) {
                throw familyElement.at.error("<family name=\"" + name + "\">: " + ex.getMessage(), ex);
            }
            gives(familyElement, "family." + name);
            familyElement = null;
            family = null;
        } else if (localName.equals("mergePolicy")) {
            builder.mergePolicy(policy, policyParams);
            policy = null;
        } else if (localName.equals("storageIO")) {
            builder.storageIO(storage, storageParams);
            storage = null;
        }
    }

    @Override
    public void endDocument() {
        // The one build: its error is reported at the element that gave the setting it names
        // (the nearest enclosing one it names: family.x for a rule over the whole family),
        // else, for a rule over settings no element gave, at the end of the document.
        try {
            result = builder.build();
        } catch (ConfigException ex) {
            Element at = elementOf(ex.setting());
            if (at == null) {
                throw XmlPosition.of(sourceName, locator).error(ex.getMessage(), ex);
            }
            throw at.at.error("<" + at.name + ">: " + ex.getMessage(), ex);
        }
    }

    /** Remembers that {@code e} gave {@code settings} (those of its attributes, whether present or not). */
    private void gives(Element e, String... settings) {
        for (String s : settings) {
            settingElements.put(s, e);
        }
    }

    /**
     * The element that gave {@code setting} or, failing that, the nearest setting it is part of; or
     * null. A setting about several parameters ({@code mergePolicy.a,b}) is at the first of them
     * the document gives.
     */
    private Element elementOf(String setting) {
        int dot = setting == null ? -1 : setting.lastIndexOf('.');
        if (dot >= 0 && setting.indexOf(',', dot) >= 0) {
            for (String name : setting.substring(dot + 1).split(",")) {
                Element e = settingElements.get(setting.substring(0, dot + 1) + name);
                if (e != null) {
                    return e;
                }
            }
            setting = setting.substring(0, dot);
        }
        for (String s = setting; s != null && !s.isEmpty(); s = s.lastIndexOf('.') < 0 ? null
                : s.substring(0, s.lastIndexOf('.'))) {
            Element e = settingElements.get(s);
            if (e != null) {
                return e;
            }
        }
        return null;
    }

    private void startFamily(Element e) {
        String name = e.text("name").orElseThrow();
        XmlPosition earlier = familyPositions.get(name);
        if (earlier != null) {
            throw e.at.error("column family \"" + name + "\" is given twice; first at line " + earlier.line()
                    + ", column " + earlier.column());
        }
        if (dev.strata.lsm.ColumnFamily.DEFAULT_NAME.equals(name)) {
            throw e.at.error("<family name=\"default\">: the default family takes the store's own settings"
                    + " (<memtable>, <mergePolicy> outside <families>)");
        }
        familyPositions.put(name, e.at);
        familyElement = e;
        familyName = name;
        family = dev.strata.lsm.FamilyOptions.builder();
    }

    private void startPolicy(Element e) {
        policy = e.text("name").orElseThrow();
        policyParams.clear();
        policyParamPositions.clear();
        gives(e, policySetting());
    }

    /** The setting the open {@code <mergePolicy>} gives: the store's policy or its family's. */
    private String policySetting() {
        return family != null ? "family." + familyName + ".mergePolicy" : "mergePolicy";
    }

    private void addParam(Element e) {
        String name = e.text("name").orElseThrow();
        String value = e.attributes.getValue("value");
        XmlPosition earlier = policyParamPositions.get(name);
        if (earlier != null) {
            throw e.at.error("parameter '" + name + "' of merge policy '" + policy
                    + "' is given twice; first at line " + earlier.line() + ", column " + earlier.column());
        }
        policyParams.put(name, value);
        policyParamPositions.put(name, e.at);
        gives(e, policySetting() + "." + name);
    }

    private void startStorage(Element e) {
        storage = e.text("name").orElseThrow();
        storageParams.clear();
        storageParamPositions.clear();
        gives(e, "storageIO");
    }

    private void addStorageParam(Element e) {
        String name = e.text("name").orElseThrow();
        String value = e.attributes.getValue("value");
        XmlPosition earlier = storageParamPositions.get(name);
        if (earlier != null) {
            throw e.at.error("parameter '" + name + "' of " + StorageIOs.KIND + " '" + storage
                    + "' is given twice; first at line " + earlier.line() + ", column " + earlier.column());
        }
        storageParams.put(name, value);
        storageParamPositions.put(name, e.at);
        gives(e, "storageIO." + name);
    }

    /** The codec named {@code name} (the schema has checked it), reported at {@code e} otherwise. */
    private static dev.strata.lsm.Compression codec(Element e, String name) {
        try {
            return dev.strata.lsm.Compression.fromName(name);
        } catch (ConfigException ex) {
            throw e.at.error("<" + e.name + ">: " + ex.getMessage(), ex);
        }
    }

    /** The prefix extractor {@code spec} names ({@code fixed:N}), reported at {@code e} otherwise. */
    private static dev.strata.lsm.PrefixExtractor prefixExtractor(Element e, String spec) {
        try {
            return dev.strata.lsm.PrefixExtractor.parse(spec);
        } catch (IllegalArgumentException ex) {
            throw e.at.error("<" + e.name + "> attribute prefixBloom: " + ex.getMessage(), ex);
        }
    }

    /** One start tag: its name, attributes and position, with typed attribute readers. */
    private record Element(String name, Attributes attributes, XmlPosition at) {

        /**
         * An attribute's value without surrounding whitespace. The schema collapses
         * whitespace before checking a value, so {@code " 64MiB "} is valid and must read
         * the same as {@code "64MiB"}.
         */
        Optional<String> text(String attribute) {
            String v = attributes.getValue(attribute);
            return v == null ? Optional.empty() : Optional.of(v.trim());
        }

        /** An {@code xs:boolean} (the schema has checked it): true for "true" and "1". */
        Optional<Boolean> flag(String attribute) {
            return text(attribute).map(v -> v.equals("true") || v.equals("1"));
        }

        /** A byte size as {@link PolicyParameter#parseBytes} reads it. */
        OptionalLong bytes(String attribute) {
            Optional<String> v = text(attribute);
            if (v.isEmpty()) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(PolicyParameter.parseBytes(v.get()));
            } catch (NumberFormatException | ArithmeticException ex) {
                // The schema has checked the form, so only the magnitude can be wrong here.
                throw at.error("<" + name + ">: bad value \"" + v.get() + "\" for " + attribute
                        + ": too large for a byte count (at most " + Long.MAX_VALUE + " bytes)", ex);
            }
        }

        /** A byte size that the builder takes as an int. */
        OptionalInt intBytes(String attribute) {
            OptionalLong v = bytes(attribute);
            if (v.isEmpty()) {
                return OptionalInt.empty();
            }
            long n = v.getAsLong();
            if (n > Integer.MAX_VALUE) {
                throw at.error("<" + name + ">: bad value \"" + text(attribute).orElseThrow() + "\" for " + attribute
                        + ": " + n + " bytes is too large (at most " + Integer.MAX_VALUE + " bytes)");
            }
            return OptionalInt.of((int) n);
        }

        /** An xs:long attribute. */
        OptionalLong longValue(String attribute) {
            Optional<String> v = text(attribute);
            if (v.isEmpty()) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(Long.parseLong(v.get()));
            } catch (NumberFormatException ex) {
                // Unreachable after validation (the schema type is xs:long); kept as a real error.
                throw at.error("<" + name + ">: bad value \"" + v.get() + "\" for " + attribute
                        + ": expected an integer", ex);
            }
        }

        /** An xs:int attribute. */
        OptionalInt integer(String attribute) {
            Optional<String> v = text(attribute);
            if (v.isEmpty()) {
                return OptionalInt.empty();
            }
            try {
                return OptionalInt.of(Integer.parseInt(v.get()));
            } catch (NumberFormatException ex) {
                // Unreachable after validation (the schema type is xs:int); kept as a real error.
                throw at.error("<" + name + ">: bad value \"" + v.get() + "\" for " + attribute
                        + ": expected an integer", ex);
            }
        }
    }
}
