/**
 * Strata's core: the store ({@code dev.strata.lsm}) and the service provider interfaces
 * that other modules implement.
 */
// "module": the qualified exports name dev.strata.lsm.policies, which is built after this module.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic", "module"})
module dev.strata.lsm {
    requires transitive micrometer.core;
    requires com.github.benmanes.caffeine;
    requires org.lz4.java;
    requires com.github.luben.zstd_jni;
    requires org.xerial.snappy;
    requires java.xml;
    requires java.management;
    // com.sun.management: the process CPU time parallelCompression="auto" decides by.
    requires jdk.management;
    requires jdk.unsupported;

    exports dev.strata.lsm;
    exports dev.strata.lsm.policy;
    exports dev.strata.lsm.io;
    exports dev.strata.lsm.mergeop;

    // Engine rules the cost-model simulator of lsm-policies applies as the engine does (the
    // level/run layout of a merge's output, and how an OutputSpec cuts output files). Not API.
    exports dev.strata.lsm.policy.layout to dev.strata.lsm.policies;
    exports dev.strata.lsm.merge to dev.strata.lsm.policies;

    uses dev.strata.lsm.policy.MergePolicyFactory;
    uses dev.strata.lsm.io.StorageIOFactory;
    uses dev.strata.lsm.mergeop.MergeOperator;

    provides dev.strata.lsm.policy.MergePolicyFactory with
            dev.strata.lsm.policy.basic.NoMergePolicyFactory,
            dev.strata.lsm.policy.basic.SizeTieredPolicyFactory;
    provides dev.strata.lsm.io.StorageIOFactory with dev.strata.lsm.io.FileChannelStorageIOFactory;
    provides dev.strata.lsm.mergeop.MergeOperator with
            dev.strata.lsm.mergeop.Uint64AddOperator,
            dev.strata.lsm.mergeop.StringAppendOperator;
}
